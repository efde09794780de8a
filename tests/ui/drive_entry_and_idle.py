#!/usr/bin/env python3
"""The viewer in a window under Xvfb with synthetic X input (XTest), waiting on its --events lines
(frames, titles, 'idle'), never on fixed sleeps.

  sigma: Ctrl+click on the sigma field, type 12, Enter: sigma becomes 12 once, never 1 on the way
         (the title, which names the applied sigma, changes once); 500 and Enter is refused and
         leaves sigma as it was; 3 and a click on the picture (the focus goes) applies 3.
  menu:  without a CUDA device the side panel's banner says the cpu path and why, and the Slots
         menu, opened with a click, greys the GPU methods with the reason and offers the CPU ones.
  idle:  once started up and idle, the viewer draws no frame and uses under 5 % of a core over
         10 s of wall time, its CPU time (utime + stime of all its threads) read from
         /proc/PID/stat; CPU time, not the time events take, so a loaded machine does not change
         it. A key then draws again and applies, and the viewer goes idle again.
    under_xvfb.sh python3 drive_entry_and_idle.py VIEWER sigma|menu|idle
Exit status 0 pass, 1 fail, 77 skipped (no libXtst)."""
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xdriver import Checks, Viewer, drive, open_display  # noqa: E402  the viewer's event lines, X input, the verdict

WIDTH, HEIGHT = 1000, 700
PICTURE = (250, 400)
IDLE_SECONDS = 10.0
IDLE_CORE_FRACTION = 0.05


def cpu_seconds(pid):
    """utime + stime of the whole process (all threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    viewer_path, what = sys.argv[1], sys.argv[2]
    x, status = open_display()
    if not x:
        return status
    key, tap, move, click = x.key, x.tap, x.move, x.click

    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(folder, "config"))
        path = [] if what == "menu" else ["--path", "cpu"]  # the menu case: no GPU, not a chosen cpu path
        viewer = Viewer([viewer_path, "--window", f"{WIDTH}x{HEIGHT}", *path, "--events"], folder, env)
        sigma_title = re.compile("title .*\u03c3 ([0-9.]+)")
        check = Checks()

        def titles_since(since):
            """The sigmas the title took since line `since` (a title that changes for another reason,
            the same sigma, is not counted)."""
            with viewer.cond:
                before = [m.group(1) for line in viewer.lines[:since] if (m := sigma_title.search(line))]
                taken = []
                for line in viewer.lines[since:]:
                    m = sigma_title.search(line)
                    if m and m.group(1) != (taken or before or [None])[-1]:
                        taken.append(m.group(1))
                return taken

        def wait_idle(since, what):
            viewer.wait_line(r"gausslab-event: idle after frame", since, f"the viewer to go idle {what}")

        def steps():
            viewer.wait_line(r"gausslab-event: field sigma", 0, "the side panel's sigma field")
            wait_idle(0, "after start-up")
            if what == "sigma":
                with viewer.cond:
                    field = [line for line in viewer.lines if "field sigma" in line][-1]
                x0, y0, x1, y1 = (float(v) for v in field.split()[-4:])
                centre = (int((x0 + x1) / 2), int((y0 + y1) / 2))

                def type_into_sigma(text, commit):
                    move(*PICTURE)  # a motion even when the pointer is on the field already
                    move(*centre)
                    viewer.frames(2)
                    key("Control_L", True)  # held over frames: Dear ImGui reads the modifier per frame
                    x.flush()
                    viewer.frames(2)
                    click()  # Ctrl+click: the slider becomes a text field, its text selected
                    viewer.frames(2)
                    key("Control_L", False)
                    x.flush()
                    viewer.frames(3)
                    for ch in text:
                        tap(ch)
                        viewer.frames(3)  # each keystroke reaches the viewer in frames of its own
                    commit()

                since = viewer.mark()
                type_into_sigma("12", lambda: tap("Return"))
                viewer.wait_line("title .*\u03c3 12( |$)", since, "sigma 12 applied on Enter")
                wait_idle(since, "after sigma 12")
                applied = titles_since(since)
                check.require("1, 2, Enter applied sigma 12 once (never 1)", applied == ["12"], f"applied {applied}")

                since = viewer.mark()
                type_into_sigma("500", lambda: tap("Return"))
                viewer.frames(3)
                wait_idle(since, "after 500 was refused")
                check.require("500 (beyond 200) and Enter refused, sigma stays 12", not titles_since(since),
                              f"applied {titles_since(since)}")

                since = viewer.mark()
                type_into_sigma("3", lambda: (move(*PICTURE), viewer.frames(2), click()))
                viewer.wait_line("title .*\u03c3 3( |$)", since, "sigma 3 applied when the field lost the focus")
                wait_idle(since, "after sigma 3")
                check.require("3 and a click on the picture applied sigma 3", titles_since(since) == ["3"],
                              f"applied {titles_since(since)}")
            elif what == "menu":
                banner = viewer.wait_line(r"gausslab-event: banner ", 0, "the cpu path banner's state")
                if "banner none" in banner:
                    print("SKIP: this machine runs the GPU methods (no cpu path banner, nothing greyed)")
                    return 77
                print(f"ok: {banner.split('event: ')[1]}")
                title = viewer.wait_line(r"gausslab-event: menu Slots ", 0, "the Slots menu's place")
                x0, y0, x1, y1 = (float(v) for v in title.split()[-4:])
                since = viewer.mark()
                move(*PICTURE)
                move(int((x0 + x1) / 2), int((y0 + y1) / 2))
                viewer.frames(2)
                click()  # opens the Slots menu
                greyed = viewer.wait_line(r"menu_item Slots 'A = .*' greyed: .*(CUDA|GPU)", since,
                                          "a GPU method greyed with its reason in the open Slots menu")
                enabled = viewer.wait_line(r"menu_item Slots 'A = CPU separable.*' enabled", since,
                                           "a CPU method enabled in the Slots menu")
                print(f"ok: {greyed.split('menu_item ')[1][:140]}")
                print(f"ok: {enabled.split('menu_item ')[1]}")
                tap("Escape")
                viewer.frames(2)
            else:
                with viewer.cond:
                    frame_before = viewer.frame
                cpu_before, wall_before = cpu_seconds(viewer.process.pid), time.monotonic()
                time.sleep(IDLE_SECONDS)  # the measurement's window, not a wait for an event
                cpu_used, wall = cpu_seconds(viewer.process.pid) - cpu_before, time.monotonic() - wall_before
                with viewer.cond:
                    frames = viewer.frame - frame_before
                fraction = cpu_used / wall
                check.require(f"an idle viewer draws nothing and uses under {100 * IDLE_CORE_FRACTION:.0f} % of a core",
                              frames == 0 and fraction < IDLE_CORE_FRACTION,
                              f"{frames} frames drawn and {cpu_used:.3f} s of CPU in {wall:.1f} s, "
                              f"{100 * fraction:.2f} % of a core")
                since = viewer.mark()
                move(*PICTURE)
                tap("Up", "Shift_L")
                viewer.wait_line("title .*\u03c3 3( |$)", since, "Shift+Up to apply sigma 3 after the idle spell")
                wait_idle(since, "after Shift+Up")
                print("ok: a key after the idle spell draws and applies; then idle again")
        return drive(viewer, x, check, steps)


if __name__ == "__main__":
    sys.exit(main())
