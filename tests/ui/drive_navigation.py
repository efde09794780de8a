#!/usr/bin/env python3
"""Navigation and layout of the viewer in a window under Xvfb with synthetic X input (XTest) (issue
39), waiting on its --events lines (frames, titles, status bar lines), never on fixed sleeps.

  keys:    '+' (Shift+equal), '=' and '-' zoom by steps of x1.41 (2 every two steps) and the window
           title says the zoom (read from the title event and from the window's _NET_WM_NAME through
           X); the status bar says it too; Up and Shift+Up step sigma (they had '=' and '+'); Ctrl+S
           saves and the status bar shows the saved file's path, which exists; Ctrl+O opens the file
           browser: Down and Enter go into a folder, Down and Enter open the image there.
  hidpi:   with Xft.dpi 192 on the X display (the content scale GLFW reports: 2), the viewer builds
           its font at 30 px (twice the 15 px of scale 1) and the side panel is twice as wide.
    under_xvfb.sh python3 drive_navigation.py VIEWER DATA_DIR keys|hidpi
Exit status 0 pass, 1 fail, 77 skipped (no libXtst)."""
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from drive_window import Viewer  # noqa: E402  the viewer process and its event lines

WIDTH, HEIGHT = 1000, 700
PICTURE = (250, 400)
ZOOM = re.compile(r"gausslab-event: title .* \u2013 ([0-9.]+) %$")


def main() -> int:
    viewer_path, data, what = sys.argv[1], sys.argv[2], sys.argv[3]
    try:
        x11 = ctypes.CDLL("libX11.so.6")
        xtest = ctypes.CDLL("libXtst.so.6")
    except OSError as error:
        print(f"SKIP: {error} (apt install libxtst6)")
        return 77
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XStringToKeysym.restype = ctypes.c_ulong
    x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XChangeProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int,
                                    ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    display = ctypes.c_void_p(x11.XOpenDisplay(None))
    if not display:
        print("FAIL: no X display (run under xvfb-run)")
        return 1

    def tap(name, *modifiers):
        code = lambda n: x11.XKeysymToKeycode(display, x11.XStringToKeysym(n.encode()))  # noqa: E731
        for m in modifiers:
            xtest.XTestFakeKeyEvent(display, code(m), True, 0)
        xtest.XTestFakeKeyEvent(display, code(name), True, 0)
        xtest.XTestFakeKeyEvent(display, code(name), False, 0)
        for m in reversed(modifiers):
            xtest.XTestFakeKeyEvent(display, code(m), False, 0)
        x11.XFlush(display)

    def move(x, y):
        xtest.XTestFakeMotionEvent(display, -1, x, y, 0)
        x11.XFlush(display)

    def window_title():
        """The viewer window's _NET_WM_NAME as X has it (xprop), or None without xprop."""
        if not shutil.which("xprop"):
            return None
        out = subprocess.run(["xprop", "-root", "_NET_CLIENT_LIST"], capture_output=True, text=True).stdout
        ids = re.findall(r"0x[0-9a-f]+", out)
        if not ids:  # no window manager under Xvfb: look the window up by its class
            tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True).stdout if shutil.which("xwininfo") else ""
            ids = re.findall(r"(0x[0-9a-f]+) \"gausslab", tree)
        for window in ids:
            name = subprocess.run(["xprop", "-id", window, "_NET_WM_NAME"], capture_output=True, text=True).stdout
            if "gausslab" in name:
                return name
        return None

    if what == "hidpi":  # the display's resources, as a desktop sets them, before the viewer starts
        resources = b"Xft.dpi:\t192\n"
        root = x11.XDefaultRootWindow(display)
        x11.XChangeProperty(display, root, x11.XInternAtom(display, b"RESOURCE_MANAGER", 0), 31, 8, 0, resources, len(resources))
        x11.XFlush(display)
        x11.XSync(display, 0)

    with tempfile.TemporaryDirectory() as folder:
        os.makedirs(os.path.join(folder, "shots"))
        shutil.copy(os.path.join(data, "palette_color.png"), os.path.join(folder, "shots", "inner.png"))
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(folder, "config"))
        viewer = Viewer([viewer_path, "--window", f"{WIDTH}x{HEIGHT}", "--path", "cpu", "--events"], folder, env)

        def zoom_after(since, what):
            line = viewer.wait_line(r"gausslab-event: title .* %$", since, what)
            with viewer.cond:
                titles = [m.group(1) for m in map(ZOOM.search, viewer.lines[since:]) if m]
            return float(titles[-1]) if titles else float(ZOOM.search(line).group(1))

        try:
            if what == "hidpi":
                scale = viewer.wait_line(r"gausslab-event: content_scale ", 0, "the content scale")
                print(f"ok: {scale.split('event: ')[1]}")
                if "content_scale 2 font 30" not in scale:
                    print("FAIL: with Xft.dpi 192 the content scale is 2 and the font 30 px")
                    return 1
                field = viewer.wait_line(r"gausslab-event: field sigma ", 0, "the sigma field's place")
                x0, y0, x1, y1 = (float(v) for v in field.split()[-4:])
                # The panel is 400 units wide at scale 1 (70 % of a 1000-pixel window at most): at 2
                # it takes 700 pixels, and the sigma slider is in its right part.
                if not x0 > WIDTH - 700 - 1 or x1 - x0 < 300:
                    print(f"FAIL: the side panel did not grow with the scale (sigma field at {x0}..{x1})")
                    return 1
                print(f"ok: the side panel grew with the scale (sigma field from x {x0:.0f} to {x1:.0f})")
            else:
                viewer.wait_line(r"gausslab-event: idle after frame", 0, "the viewer to start up and go idle")
                start = zoom_after(0, "the first title with the zoom")
                print(f"ok: the title says the zoom: {start} %")
                move(*PICTURE)
                since = viewer.mark()
                tap("plus", "Shift_L")
                up = zoom_after(since, "'+' to zoom in")
                if not up > start:
                    print(f"FAIL: '+' took the zoom from {start} % to {up} %")
                    return 1
                since = viewer.mark()
                tap("equal")
                up2 = zoom_after(since, "'=' to zoom in")
                if abs(up2 / up - 2 ** 0.5) > 0.01:
                    print(f"FAIL: '=' after '+' took the zoom from {up} % to {up2} %, not one step of x1.41")
                    return 1
                since = viewer.mark()
                tap("minus")
                down = zoom_after(since, "'-' to zoom out")
                if down != up:
                    print(f"FAIL: '-' took the zoom from {up2} % back to {down} %, not {up} %")
                    return 1
                print(f"ok: '+' {start} -> {up} %, '=' -> {up2} %, '-' -> {down} % in the title")
                status = viewer.wait_line(rf"gausslab-event: status_view zoom {down:g} %", since, "the status bar's zoom")
                print(f"ok: the status bar says {status.split('status_view ')[1]}")
                x_title = window_title()
                if x_title is not None:
                    if f"{down:g} %" not in x_title:
                        print(f"FAIL: the window's title through X does not say {down:g} %: {x_title}")
                        return 1
                    print(f"ok: X has the title {x_title.split('=', 1)[1].strip()}")
                since = viewer.mark()
                tap("Up")
                viewer.wait_line("title .*\u03c3 2.1 ", since, "Up to step sigma to 2.1")
                since = viewer.mark()
                tap("Up", "Shift_L")
                viewer.wait_line("title .*\u03c3 3.1 ", since, "Shift+Up to step sigma to 3.1")
                print("ok: Up and Shift+Up step sigma by 0.1 and 1")

                since = viewer.mark()
                tap("s", "Control_L")
                line = viewer.wait_line(r"gausslab-event: status saved ", since, "the status bar to show the save")
                path = re.match(r"gausslab-event: status saved (.*\.png) \(\+ \.json\)$", line).group(1)
                if not os.path.isabs(path) or not os.path.exists(path):
                    print(f"FAIL: the status bar's saved path {path!r} is not an existing absolute path")
                    return 1
                print(f"ok: the status bar shows the saved file {path}, which exists")

                since = viewer.mark()
                tap("o", "Control_L")
                viewer.wait_line(r"action open", since)
                viewer.frames(3)  # the browser lists the folder, its field focused
                for key in ("Down", "Return"):  # shots/ is the first entry: folders come first
                    tap(key)
                    viewer.frames(3)
                for key in ("Down", "Return"):  # inner.png, the only image there
                    tap(key)
                    viewer.frames(3)
                opened = viewer.wait_line(r"gausslab-event: message opened .*shots/inner\.png", since,
                                          "the browser to open shots/inner.png")
                print(f"ok: the file browser went into shots/ and {opened.split('event: message ')[1]}")
            since = viewer.mark()
            tap("q", "Control_L")
            viewer.process.wait(timeout=60)
            if viewer.process.returncode != 0:
                print(f"FAIL: Ctrl+Q ended the viewer with status {viewer.process.returncode}")
                return 1
        except AssertionError as error:
            print(f"FAIL: {error}")
            with viewer.cond:
                print("\n".join(line for line in viewer.lines[-40:] if "event: frame" not in line))
            return 1
        finally:
            if viewer.process.poll() is None:
                viewer.process.kill()
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
