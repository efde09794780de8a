"""What the window drivers share (drive_window.py, drive_entry_and_idle.py, drive_sequence_window.py,
drive_reference_slot.py, drive_navigation.py): the viewer process and its --events lines (Viewer:
wait on a line or a frame count, never on a fixed sleep; quit with Ctrl+Q; end it after a failure),
synthetic X input through XTest plus screen reads (XInput: keys, typed text, pointer motion,
buttons, pixels, the display's resources) and the driver's verdict (Checks)."""
import ctypes
import re
import subprocess
import threading
import time

TIMEOUT = 60.0  # per wait: generous for a loaded machine; a pass never waits this long
SKIP = 77       # CTest's skip status (SKIP_RETURN_CODE)


class Viewer:
    """The viewer process and the event lines it prints."""

    def __init__(self, command, cwd, env):
        self.process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines = []
        self.frame = 0
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                m = re.match(r"gausslab-event: frame (\d+)", line)
                if m:
                    self.frame = int(m.group(1))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait(self, predicate, what):
        end = time.time() + TIMEOUT
        with self.cond:
            while not predicate():
                if self.process.poll() is not None and not predicate():
                    raise AssertionError(f"the viewer ended (status {self.process.returncode}) before {what}")
                left = end - time.time()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}")
                self.cond.wait(min(left, 0.5))

    def mark(self):
        with self.cond:
            return len(self.lines)

    def wait_line(self, pattern, since, what=None):
        regex = re.compile(pattern)
        found = []

        def seen():
            for line in self.lines[since:]:
                if regex.search(line):
                    found.append(line)
                    return True
            return False
        self.wait(seen, what or f"a line matching /{pattern}/")
        return found[0]

    def frames(self, count):
        """Waits until `count` more frames are drawn (so the viewer has seen what was sent)."""
        with self.cond:
            target = self.frame + count
        self.wait(lambda: self.frame >= target, f"frame {target}")

    def quit(self, x):
        """Ctrl+Q through the X input `x`; waits for the viewer to end and returns its status."""
        x.tap("q", "Control_L")
        self.wait(lambda: self.process.poll() is not None, "the viewer to quit on Ctrl+Q")
        return self.process.returncode

    def stop(self):
        """Ends the viewer if it still runs (a check failed before Ctrl+Q) and reaps it."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT)

    def events(self, last):
        """Its last `last` lines other than the frame counts: what it said, to print after a failure."""
        with self.cond:
            said = [line for line in self.lines if not line.startswith("gausslab-event: frame")]
        return "\n".join(said[-last:])


class Checks:
    """A driver's checks, a line each ('ok: ...' or 'FAIL: ...'), and its verdict."""

    def __init__(self):
        self.ok = True

    def __call__(self, what, passed, detail=""):
        """One check; the driver goes on after a failure. Returns whether it passed."""
        print(("ok: " if passed else "FAIL: ") + what + (f" ({detail})" if detail else ""))
        self.ok = self.ok and passed
        return passed

    def require(self, what, passed, detail=""):
        """A check the rest depends on: a failure stops the driver, as a wait that timed out does
        (an AssertionError, which the driver hands to failed())."""
        if not passed:
            raise AssertionError(what + (f" ({detail})" if detail else ""))
        self(what, True, detail)

    def failed(self, error):
        """What stopped the driver (an AssertionError: a wait timed out, the viewer ended, a required check)."""
        print(f"FAIL: {error}")
        self.ok = False

    def verdict(self, viewer, last=40):
        """PASS (status 0) or FAIL (status 1), after a failure with what the viewer said last."""
        if not self.ok:
            print(viewer.events(last))
        print("PASS" if self.ok else "FAIL")
        return 0 if self.ok else 1


def drive(viewer, x, check, steps):
    """Runs a driver's `steps`, then quits with Ctrl+Q (status 0 checked); a wait that timed out or a
    required check stops them (a FAIL line, the viewer's last lines); the viewer is ended whatever
    happens. Returns the exit status: `steps`' own when it returns one (77: skipped), else the verdict."""
    try:
        status = steps()
        if status is not None:
            return status
        status = viewer.quit(x)
        check("Ctrl+Q quits with status 0", status == 0, f"status {status}")
    except AssertionError as error:
        check.failed(error)
    finally:
        viewer.stop()
    return check.verdict(viewer)


class _XImage(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int),
                ("format", ctypes.c_int), ("data", ctypes.c_void_p), ("byte_order", ctypes.c_int),
                ("bitmap_unit", ctypes.c_int), ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int),
                ("depth", ctypes.c_int), ("bytes_per_line", ctypes.c_int), ("bits_per_pixel", ctypes.c_int)]


class XInput:
    """Synthetic input on the X display (XTest) and reads of its screen."""

    NAMES = {"/": "slash", ".": "period", "_": "underscore", "-": "minus", "+": "plus", "?": "question",
             " ": "space", ":": "colon"}
    SHIFTED = set("_+?:")

    def __init__(self, x11, xtest, display):
        self.x11, self.xtest, self.display = x11, xtest, display
        self.root = x11.XDefaultRootWindow(display)

    def flush(self):
        self.x11.XFlush(self.display)

    def keycode(self, name):
        return self.x11.XKeysymToKeycode(self.display, self.x11.XStringToKeysym(name.encode()))

    def key(self, name, down):
        self.xtest.XTestFakeKeyEvent(self.display, self.keycode(name), down, 0)

    def tap(self, name, *modifiers):
        """Press and release in one go: the whole tap reaches the viewer between two frames."""
        for m in modifiers:
            self.key(m, True)
        self.key(name, True)
        self.key(name, False)
        for m in reversed(modifiers):
            self.key(m, False)
        self.flush()

    def type_text(self, text):
        for ch in text:
            self.tap(self.NAMES.get(ch, ch), *(["Shift_L"] if ch in self.SHIFTED else []))

    def move(self, x, y):
        self.xtest.XTestFakeMotionEvent(self.display, -1, x, y, 0)
        self.flush()

    def button(self, number, down):
        self.xtest.XTestFakeButtonEvent(self.display, number, down, 0)
        self.flush()

    def click(self, *modifiers):
        for m in modifiers:
            self.key(m, True)
        self.xtest.XTestFakeButtonEvent(self.display, 1, True, 0)
        self.xtest.XTestFakeButtonEvent(self.display, 1, False, 0)
        for m in reversed(modifiers):
            self.key(m, False)
        self.flush()

    def pixels(self, x, y, w, h):
        """The screen's pixels (the window sits at the origin: Xvfb has no window manager) as RGB rows."""
        image = self.x11.XGetImage(self.display, self.root, x, y, w, h, ctypes.c_ulong(-1).value, 2)  # ZPixmap
        if not image:
            raise AssertionError("XGetImage failed")
        im = image.contents
        if im.bits_per_pixel != 32:
            raise AssertionError(f"a {im.bits_per_pixel}-bit screen (run Xvfb at 24-bit depth)")
        raw = ctypes.string_at(im.data, im.bytes_per_line * h)
        rows = [[(raw[r * im.bytes_per_line + 4 * c + 2], raw[r * im.bytes_per_line + 4 * c + 1],
                  raw[r * im.bytes_per_line + 4 * c]) for c in range(w)] for r in range(h)]
        self.x11.XFree(im.data)
        self.x11.XFree(image)
        return rows

    def set_resources(self, text):
        """Sets the display's resources (RESOURCE_MANAGER on the root window, as a desktop does; e.g.
        Xft.dpi, from which GLFW reads the content scale): before the viewer starts."""
        data = text.encode()
        atom = self.x11.XInternAtom(self.display, b"RESOURCE_MANAGER", 0)
        self.x11.XChangeProperty(self.display, self.root, atom, 31, 8, 0, data, len(data))  # XA_STRING, 8-bit, replace
        self.x11.XSync(self.display, 0)


def open_display():
    """(XInput, None) on the current X display, or (None, exit status): 77 without libXtst, 1 without
    a display."""
    try:
        x11 = ctypes.CDLL("libX11.so.6")
        xtest = ctypes.CDLL("libXtst.so.6")
    except OSError as error:
        print(f"SKIP: {error} (apt install libxtst6)")
        return None, SKIP
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XStringToKeysym.restype = ctypes.c_ulong
    x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                              ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
    x11.XGetImage.restype = ctypes.POINTER(_XImage)
    x11.XFree.argtypes = [ctypes.c_void_p]
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XChangeProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int,
                                    ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
    display = ctypes.c_void_p(x11.XOpenDisplay(None))
    if not display:
        print("FAIL: no X display (run under xvfb-run)")
        return None, 1
    return XInput(x11, xtest, display), None
