#!/usr/bin/env python3
"""Drives the interactive viewer in a window with synthetic X input (XTest), as a user would, and
waits on what the viewer reports (--events: a line per frame, action and message) and on the files
it saves: never on fixed sleeps, so a loaded machine only makes it slower.

Checks: a key tap shorter than a frame (press and release sent together) is seen (Ctrl+S saves,
twice: a new name, never an overwrite, each with its JSON sidecar); Shift+Up steps sigma; the Open
field (Ctrl+O) takes '_' and '-' as text, not as sigma keys; a broken file leaves the picture; the
wheel, drags, the split divider, blink and help work; Ctrl+Q quits with status 0.
    xvfb-run -a -s "-screen 0 1280x1024x24" drive_window.py VIEWER DATA_DIR
Exit status 0 pass, 1 fail, 77 skipped (no libXtst)."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xdriver import Checks, Viewer, drive, open_display  # noqa: E402  the viewer's event lines, X input, the verdict

WIDTH, HEIGHT = 1000, 700
PICTURE = (250, 400)  # over the picture: left of the side panel, below the menu bar


def main() -> int:
    viewer_path, data = sys.argv[1], sys.argv[2]
    x, status = open_display()
    if not x:
        return status
    tap, type_text, move, button = x.tap, x.type_text, x.move, x.button

    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(os.path.join(data, "palette_color.png"), os.path.join(folder, "p_c.png"))
        shutil.copy(os.path.join(data, "truncated.jpg"), os.path.join(folder, "t-j.jpg"))
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(folder, "config"))  # no remembered save folder
        viewer = Viewer([viewer_path, "--window", f"{WIDTH}x{HEIGHT}", "--path", "cpu", "--events"], folder, env)
        check = Checks()

        def expect_saved(name, since):
            viewer.wait_line(r"gausslab-event: (message saved|error) ", since, f"the message after saving {name}")
            path = os.path.join(folder, name)
            if not os.path.exists(path):
                check(f"{name} saved", False, f"the folder holds {sorted(os.listdir(folder))}")
                return
            sidecar = os.path.splitext(path)[0] + ".json"
            with open(sidecar) as f:
                meta = json.load(f)
            print(f"ok: saved {name} with its sidecar (sigma {meta['sigma']}, method {meta['method_a']})")

        def steps():
            viewer.frames(3)  # the window is up and drawing
            move(*PICTURE)
            viewer.frames(2)
            for _ in range(2):  # Shift+Up: sigma 2 -> 3 -> 4
                since = viewer.mark()
                tap("Up", "Shift_L")
                viewer.wait_line(r"action sigma_up_large", since)

            # The tap test: Ctrl+S pressed and released between two frames must still save.
            since = viewer.mark()
            tap("s", "Control_L")
            viewer.wait_line(r"action save_a", since, "the Ctrl+S tap to be seen")
            expect_saved("gausslab-auto-sigma4-reflect-512x512.png", since)
            since = viewer.mark()
            tap("s", "Control_L")  # the same name again: a new file, never an overwrite
            expect_saved("gausslab-auto-sigma4-reflect-512x512-2.png", since)

            # The Open field (Ctrl+O: the file browser's): '_' and '-' in the path are text there, not zoom keys.
            since = viewer.mark()
            tap("o", "Control_L")
            viewer.wait_line(r"action open", since)
            viewer.frames(2)  # the field takes the focus
            type_text("p_c.png")
            viewer.frames(2)
            tap("Return")
            viewer.wait_line(r"message opened p_c.png", since)
            viewer.frames(2)
            since = viewer.mark()
            tap("s", "Control_L")
            expect_saved("gausslab-auto-sigma4-reflect-10x10.png", since)

            # A broken file: a message, and the 10x10 picture stays.
            since = viewer.mark()
            tap("o", "Control_L")
            viewer.wait_line(r"action open", since)
            viewer.frames(2)
            tap("a", "Control_L")  # select the old text to replace it
            viewer.frames(2)
            type_text("t-j.jpg")
            viewer.frames(2)
            tap("Return")
            viewer.wait_line(r"gausslab-event: error could not open: .*t-j\.jpg", since)
            tap("Escape")
            viewer.frames(2)

            # Wheel and drags over the picture; the split view and its divider; blink; help.
            move(*PICTURE)
            viewer.frames(1)
            for b in (4, 4, 5):
                button(b, True)
                button(b, False)
                viewer.frames(1)
            button(1, True)
            viewer.frames(1)
            move(PICTURE[0] + 40, PICTURE[1] + 25)
            viewer.frames(1)
            button(1, False)
            since = viewer.mark()
            tap("s")  # split view
            viewer.wait_line(r"action view_split", since)
            divider_x = (WIDTH - 400) // 2
            move(divider_x, 400)
            viewer.frames(2)
            button(1, True)
            viewer.frames(1)
            move(divider_x + 100, 400)
            viewer.frames(1)
            button(1, False)
            since = viewer.mark()
            tap("b")
            viewer.wait_line(r"action blink", since)
            since = viewer.mark()
            type_text("?")
            viewer.wait_line(r"action help", since)
            since = viewer.mark()
            tap("F1")
            viewer.wait_line(r"action help", since)
            since = viewer.mark()
            tap("s", "Control_L")
            expect_saved("gausslab-auto-sigma4-reflect-10x10-2.png", since)

        return drive(viewer, x, check, steps)


if __name__ == "__main__":
    sys.exit(main())
