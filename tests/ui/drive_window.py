#!/usr/bin/env python3
"""Drives the interactive viewer in a window with synthetic X input (XTest), as a user would:
typed keys ('+' steps sigma), Ctrl+S (saves the full-resolution result, never overwriting), the
Open field (typing a path there must not trigger the sigma keys), a broken file (the old picture
stays), the mouse wheel and drags. Checks the files the viewer saves, whose names carry method,
sigma, border and size. Run under Xvfb:
    xvfb-run -a -s "-screen 0 1280x1024x24" drive_window.py VIEWER DATA_DIR
Exit status 0 pass, 1 fail, 77 skipped (no libXtst)."""
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time

WIDTH, HEIGHT = 1000, 700
OPEN_FIELD = (WIDTH - 300, 63)  # the panel's Open field: panel at the top right, 380 wide
PICTURE = (300, 400)            # over the picture, away from the panel and the overlay


def main() -> int:
    viewer, data = sys.argv[1], sys.argv[2]
    try:
        x11 = ctypes.CDLL("libX11.so.6")
        xtest = ctypes.CDLL("libXtst.so.6")
    except OSError as error:
        print(f"SKIP: {error} (apt install libxtst6)")
        return 77
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XStringToKeysym.restype = ctypes.c_ulong
    x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    display = ctypes.c_void_p(x11.XOpenDisplay(None))
    if not display:
        print("FAIL: no X display (run under xvfb-run)")
        return 1

    def sync(pause=0.3):  # each event in its own viewer frame or two
        x11.XFlush(display)
        time.sleep(pause)

    def keycode(name):
        return x11.XKeysymToKeycode(display, x11.XStringToKeysym(name.encode()))

    def key(name, *modifiers):
        for m in modifiers:
            xtest.XTestFakeKeyEvent(display, keycode(m), True, 0)
        xtest.XTestFakeKeyEvent(display, keycode(name), True, 0)
        sync()
        xtest.XTestFakeKeyEvent(display, keycode(name), False, 0)
        for m in modifiers:
            xtest.XTestFakeKeyEvent(display, keycode(m), False, 0)
        sync()

    def type_text(text):  # characters queue up in ImGui, so they need no frame each
        names = {"/": "slash", ".": "period", "_": "underscore", "-": "minus"}
        for ch in text:
            shift = keycode("Shift_L") if ch == "_" else None
            if shift:
                xtest.XTestFakeKeyEvent(display, shift, True, 0)
            xtest.XTestFakeKeyEvent(display, keycode(names.get(ch, ch)), True, 0)
            xtest.XTestFakeKeyEvent(display, keycode(names.get(ch, ch)), False, 0)
            if shift:
                xtest.XTestFakeKeyEvent(display, shift, False, 0)
            sync(0.02)
        sync()

    def move(x, y):
        xtest.XTestFakeMotionEvent(display, -1, x, y, 0)
        sync()

    def button(number, down):
        xtest.XTestFakeButtonEvent(display, number, down, 0)
        sync()

    def click(number=1):
        button(number, True)
        button(number, False)

    with tempfile.TemporaryDirectory() as folder:
        # Short names to type (with the '_' and '-' that are sigma keys outside a text field).
        shutil.copy(os.path.join(data, "palette_color.png"), os.path.join(folder, "p_c.png"))
        shutil.copy(os.path.join(data, "truncated.jpg"), os.path.join(folder, "t-j.jpg"))
        process = subprocess.Popen([viewer, "--window", f"{WIDTH}x{HEIGHT}"], cwd=folder,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        def expect_file(name, timeout=20.0):
            path = os.path.join(folder, name)
            end = time.time() + timeout
            while time.time() < end:
                if os.path.exists(path):
                    print(f"ok: saved {name}")
                    return True
                if process.poll() is not None:
                    break
                time.sleep(0.2)
            print(f"FAIL: {name} was not saved; the folder holds {sorted(os.listdir(folder))}")
            return False

        try:
            time.sleep(3.0)  # the window opens and shows the default picture
            move(*PICTURE)
            key("plus", "Shift_L")  # '+': sigma 2 -> 3
            key("plus", "Shift_L")  # sigma 4
            key("s", "Control_L")
            ok = expect_file("gausslab-cpu_openmp-sigma4-reflect-512x512.png")
            key("s", "Control_L")  # the same name again: a new file, never an overwrite
            ok = expect_file("gausslab-cpu_openmp-sigma4-reflect-512x512-2.png") and ok

            # Typing into the Open field: the '_' and '-' in the path must not step sigma.
            move(*OPEN_FIELD)
            click()
            type_text("p_c.png")
            key("Return")
            move(*PICTURE)
            key("s", "Control_L")
            ok = expect_file("gausslab-cpu_openmp-sigma4-reflect-10x10.png") and ok

            # A broken file: a message in the window, the 10x10 picture stays.
            move(*OPEN_FIELD)
            click()
            key("a", "Control_L")  # select the old text to replace it
            type_text("t-j.jpg")
            key("Return")
            move(*PICTURE)
            click(4)  # wheel: zoom in, zoom in, zoom out around the cursor
            click(4)
            click(5)
            button(1, True)  # drag: pan
            move(PICTURE[0] + 40, PICTURE[1] + 25)
            button(1, False)
            key("m")  # display B, then split
            key("m")
            move(WIDTH // 2, 400)  # drag the split divider
            button(1, True)
            move(WIDTH // 2 + 100, 400)
            button(1, False)
            key("s", "Control_L")
            ok = expect_file("gausslab-cpu_openmp-sigma4-reflect-10x10-2.png") and ok

            if process.poll() is not None:
                print(f"FAIL: the viewer ended early with status {process.returncode}")
                ok = False
        finally:
            if process.poll() is None:
                process.terminate()
            output = process.communicate(timeout=20)[0]
            print(output, end="")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
