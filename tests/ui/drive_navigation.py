#!/usr/bin/env python3
"""Navigation and layout of the viewer in a window under Xvfb with synthetic X input (XTest) (issue
39), waiting on its --events lines (frames, titles, status bar lines), never on fixed sleeps.

  keys:    '+' (Shift+equal), '=' and '-' zoom by steps of x1.41 (2 every two steps) and the window
           title says the zoom (read from the title event and from the window's _NET_WM_NAME through
           X); the status bar says it too; Up and Shift+Up step sigma (they had '=' and '+'); Ctrl+S
           saves and the status bar shows the saved file's path, which exists; Ctrl+O opens the file
           browser: Down and Enter go into a folder, Down and Enter open the image there.
  hidpi:   with Xft.dpi 192 on the X display (the content scale GLFW reports: 2), the viewer builds
           its font at 30 px (twice the 15 px of scale 1), the side panel is twice as wide and the
           room its sliders leave for their labels too (the sigma field's label ends inside it).
    under_xvfb.sh python3 drive_navigation.py VIEWER DATA_DIR keys|hidpi
Exit status 0 pass, 1 fail, 77 skipped (no libXtst)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xdriver import Checks, Viewer, drive, open_display  # noqa: E402  the viewer's event lines, X input, the verdict

WIDTH, HEIGHT = 1000, 700
PICTURE = (250, 400)
ZOOM = re.compile(r"gausslab-event: title .* \u2013 ([0-9.]+) %$")


def main() -> int:
    viewer_path, data, what = sys.argv[1], sys.argv[2], sys.argv[3]
    x, status = open_display()
    if not x:
        return status
    tap, move = x.tap, x.move

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

    if what == "hidpi":
        x.set_resources("Xft.dpi:\t192\n")

    with tempfile.TemporaryDirectory() as folder:
        os.makedirs(os.path.join(folder, "shots"))
        shutil.copy(os.path.join(data, "palette_color.png"), os.path.join(folder, "shots", "inner.png"))
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(folder, "config"))
        viewer = Viewer([viewer_path, "--window", f"{WIDTH}x{HEIGHT}", "--path", "cpu", "--events"], folder, env)
        check = Checks()

        def zoom_after(since, what):
            line = viewer.wait_line(r"gausslab-event: title .* %$", since, what)
            with viewer.cond:
                titles = [m.group(1) for m in map(ZOOM.search, viewer.lines[since:]) if m]
            return float(titles[-1]) if titles else float(ZOOM.search(line).group(1))

        def steps():
            if what == "hidpi":
                scale = viewer.wait_line(r"gausslab-event: content_scale ", 0, "the content scale")
                check.require("with Xft.dpi 192 the content scale is 2 and the font 30 px",
                              "content_scale 2 font 30" in scale, scale.split("event: ")[1])
                field = viewer.wait_line(r"gausslab-event: field sigma ", 0, "the sigma field's place")
                x0, y0, x1, y1 = (float(v) for v in field.split()[-4:])
                # The panel is 400 units wide at scale 1 (70 % of a 1000-pixel window at most): at 2
                # it takes 700 pixels, and the sigma slider is in its right part.
                check.require("the side panel grew with the scale", x0 > WIDTH - 700 - 1 and x1 - x0 >= 300,
                              f"sigma field from x {x0:.0f} to {x1:.0f}")
                # The room its sliders leave for their labels grows too (90 units: 180 pixels), so that
                # the field with its label ends inside the panel (16 pixels: its padding at scale 2).
                check.require("the sigma field's label fits in the panel", x1 <= WIDTH - 16,
                              f"the field and its label end at x {x1:.0f} of {WIDTH}")
            else:
                viewer.wait_line(r"gausslab-event: idle after frame", 0, "the viewer to start up and go idle")
                start = zoom_after(0, "the first title with the zoom")
                print(f"ok: the title says the zoom: {start} %")
                move(*PICTURE)
                since = viewer.mark()
                tap("plus", "Shift_L")
                up = zoom_after(since, "'+' to zoom in")
                check.require("'+' zooms in", up > start, f"from {start} % to {up} %")
                since = viewer.mark()
                tap("equal")
                up2 = zoom_after(since, "'=' to zoom in")
                check.require("'=' after '+' zooms in one step of x1.41", abs(up2 / up - 2 ** 0.5) <= 0.01,
                              f"from {up} % to {up2} %")
                since = viewer.mark()
                tap("minus")
                down = zoom_after(since, "'-' to zoom out")
                check.require("'-' zooms back out one step, the title says each zoom", down == up,
                              f"'+' {start} -> {up} %, '=' -> {up2} %, '-' -> {down} %")
                status = viewer.wait_line(rf"gausslab-event: status_view zoom {down:g} %", since, "the status bar's zoom")
                print(f"ok: the status bar says {status.split('status_view ')[1]}")
                x_title = window_title()
                if x_title is not None:
                    check.require(f"the window's title through X says {down:g} %", f"{down:g} %" in x_title,
                                  x_title.split("=", 1)[-1].strip())
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
                check.require("the status bar shows the saved file's path, absolute and existing",
                              os.path.isabs(path) and os.path.exists(path), path)

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
        return drive(viewer, x, check, steps)


if __name__ == "__main__":
    sys.exit(main())
