#!/usr/bin/env python3
"""Drives the viewer's sequence mode in a window with synthetic X input (XTest), as a user would, and
looks at the window itself (XGetImage of the screen): the mode answers the keys every mode shares
through the one action dispatcher (app/actions/action_dispatcher.hpp), as the comparison mode does.

Checks: the menu bar is drawn along the top and the status bar along the bottom, saying the zoom
(status_bar.hpp, as in the comparison mode); the timing overlay is docked in the side panel (its
cpu badge is drawn there, right of the picture); F1 opens the help (the centre of the window changes to
the help's table) and Esc closes it (the centre is the paused frame again); '?' opens it too and its
second press closes it; '.' steps one frame on; Ctrl+Q quits with status 0. Waits on the viewer's
event lines (--events) and on frames drawn, never on fixed sleeps.
    xvfb-run -a -s "-screen 0 1280x1024x24" drive_sequence_window.py VIEWER
Exit status 0 pass, 1 fail, 77 skipped (no libXtst)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xdriver import Checks, Viewer, drive, open_display  # noqa: E402  the viewer's event lines, X input, the verdict

WIDTH, HEIGHT = 1200, 900
CENTRE = (WIDTH // 2 - 60, HEIGHT // 2 - 40, 120, 80)  # x, y, w, h: where the help window is drawn
MENU_BAR_GREY = (36, 36, 36)  # Dear ImGui's dark style: MenuBarBg (0.14, 0.14, 0.14), the status bar's too
CPU_BADGE = (45, 108, 223)    # app/panels/path_badge.hpp
PANEL_WIDTH = 400             # the side panel at a content scale of 1 (viewer_state.hpp)


def main() -> int:
    viewer_path = sys.argv[1]
    x, status = open_display()
    if not x:
        return status
    tap, pixels = x.tap, x.pixels

    def near(p, colour, tolerance):
        return max(abs(c - g) for c, g in zip(p, colour)) <= tolerance

    def difference(a, b):
        """Mean absolute difference of two pixel blocks, in levels."""
        total = sum(abs(p - q) for ra, rb in zip(a, b) for pa, pb in zip(ra, rb) for p, q in zip(pa, pb))
        return total / (3 * len(a) * len(a[0]))

    viewer = Viewer([viewer_path, "--sequence", "synthetic", "--size", "160x120", "--history", "4",
                     "--window", f"{WIDTH}x{HEIGHT}", "--path", "cpu", "--events"], os.getcwd(), dict(os.environ))
    check = Checks()

    def steps():
        viewer.frames(5)  # the window is up and drawing (interactive use starts paused)
        bar = pixels(WIDTH - 12, 4, 8, 8)
        check("the menu bar is drawn along the top (Dear ImGui's menu bar grey at the top right)",
              all(near(p, MENU_BAR_GREY, 3) for row in bar for p in row), f"{bar[0][0]}")
        zoom = viewer.wait_line(r"gausslab-event: status_view zoom \S+ %", 0, "the status bar's zoom")
        bottom = pixels(WIDTH // 2 - 4, HEIGHT - 14, 8, 6)  # between the message and the zoom
        check("the status bar is drawn along the bottom and says the zoom",
              all(near(p, MENU_BAR_GREY, 3) for row in bottom for p in row),
              f"{zoom.split('status_view ')[1]}; {bottom[0][0]} at the bottom")
        panel = pixels(WIDTH - PANEL_WIDTH, 0, PANEL_WIDTH, HEIGHT)
        picture = pixels(0, 0, WIDTH - PANEL_WIDTH, HEIGHT // 2)
        badge_in_panel = sum(near(p, CPU_BADGE, 2) for row in panel for p in row)
        badge_over_picture = sum(near(p, CPU_BADGE, 2) for row in picture for p in row)
        check("the timing overlay is docked in the side panel (its cpu badge there, none over the picture)",
              badge_in_panel >= 16 * 16 and badge_over_picture == 0,
              f"{badge_in_panel} badge pixels in the panel, {badge_over_picture} over the picture")
        paused = pixels(*CENTRE)

        since = viewer.mark()
        tap("F1")
        viewer.wait_line(r"gausslab-event: action help", since, "F1 to be seen")
        viewer.frames(3)
        shown = difference(paused, pixels(*CENTRE))
        check("F1 opens the help over the picture", shown > 10, f"the centre changed by {shown:.1f} levels")

        since = viewer.mark()
        tap("Escape")
        viewer.wait_line(r"gausslab-event: action close", since, "Esc to be seen")
        viewer.frames(3)
        back = difference(paused, pixels(*CENTRE))
        check("Esc closes the help", back < 2, f"the centre differs from the paused frame by {back:.1f} levels")

        since = viewer.mark()
        tap("question", "Shift_L")
        viewer.wait_line(r"gausslab-event: action help", since, "'?' to be seen")
        viewer.frames(3)
        shown = difference(paused, pixels(*CENTRE))
        since = viewer.mark()
        tap("question", "Shift_L")
        viewer.wait_line(r"gausslab-event: action help", since, "the second '?' to be seen")
        viewer.frames(3)
        back = difference(paused, pixels(*CENTRE))
        check("'?' opens the help and closes it again", shown > 10 and back < 2,
              f"the centre changed by {shown:.1f}, then {back:.1f} levels")

        since = viewer.mark()
        tap("period")
        viewer.wait_line(r"gausslab-event: action step", since, "'.' to be seen")

    return drive(viewer, x, check, steps)


if __name__ == "__main__":
    sys.exit(main())
