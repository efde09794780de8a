#!/usr/bin/python3
"""gausslab-filter's batch paths and MPI, on the CPU: byte for byte what a single process writes.

- a folder of test images (odd sizes, grey to RGBA, a subfolder, a truncated file) into an
  --out-dir that does not exist yet: the folder is made, every good file is written, the truncated
  one gets its message, exit status 1;
- --recursive keeps the subfolder; --from-list - --list-comments reads the paths from standard input;
- with --mpiexec: the same folder under `mpirun --oversubscribe -np 3` (with --allow-run-as-root
  when run as root): exit status 1 from every rank, the same files, byte-identical to the single
  process; --from-list - under mpirun (standard input reaches rank 0);
- ranks share the host's cores: under `mpirun -np 3` with cpu_openmp each rank reports at most
  max(1, cores / 3) CPU threads and OpenMP threads (1 on a 2-core machine), over files and over one
  image's rows, and writes what one process writes; --threads 2 gives each rank 2 of both;
- one image split in bands across 3 ranks (and in 4 bands in one process), in all five border
  modes, byte-identical to the single-pass result; also an image whose bands are thinner than the
  radius, so that every halo reaches past the next rank's rows and past the image's edges.

usage: check_filter_batch.py --filter PATH/gausslab-filter [--mpiexec PATH/mpirun] [--data tests/data]
Exit status 0 when every check holds, 1 otherwise. Needs NumPy (tests/cli/png_io.py).
"""
import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_kit  # noqa: E402
import png_io  # noqa: E402

BORDERS = ("reflect", "mirror", "nearest", "constant", "wrap")
GOOD = ("camera.png", "chelsea.png", "coffee.png", "palette_color.png", "hubble_deep_field.jpg")


class Checks(check_kit.Checks):
    def __init__(self, tool, mpiexec):
        super().__init__()
        self.tool = tool
        self.mpiexec = mpiexec

    def mpi_prefix(self, ranks):
        prefix = [self.mpiexec, "--oversubscribe", "-np", str(ranks)]
        if os.geteuid() == 0:
            prefix.insert(1, "--allow-run-as-root")
        return prefix

    def run(self, args, ranks=0, stdin=None):
        command = (self.mpi_prefix(ranks) if ranks else []) + [self.tool, *args]
        env = dict(os.environ)
        # Containers often forbid the cross-process copy that Open MPI's shared memory uses.
        env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=600, env=env)

    def expect(self, name, args, status, words=(), ranks=0, stdin=None):
        done = self.run(args, ranks, stdin)
        problems = []
        if done.returncode != status:
            problems.append(f"exit status {done.returncode}, expected {status}")
        for word in words:
            if word not in done.stderr:
                problems.append(f"stderr does not mention {word!r}")
        for sign in ("terminate called", "Segmentation", "core dumped"):
            if sign in done.stderr:
                problems.append(f"stderr shows {sign!r}")
        self.check(name, not problems, "; ".join(problems) + f"\n      stderr: {done.stderr.strip()[-1500:]}")
        return done

    def check_threads(self, name, stderr, ranks, most, exactly=False):
        """Each rank's summary line gives its CPU and OpenMP threads: at most (or exactly) `most`."""
        found = {int(r): (int(pool), int(omp)) for r, pool, omp in RANK_LINE.findall(stderr)}
        fits = (lambda n: n == most) if exactly else (lambda n: 1 <= n <= most)
        good = sorted(found) == list(range(ranks)) and all(fits(p) and fits(o) for p, o in found.values())
        self.check(f"{name}: every rank's threads {'=' if exactly else '<='} {most} (CPU pool and OpenMP)", good,
                   f"found {found}\n      stderr: {stderr.strip()[-1200:]}")


RANK_LINE = re.compile(r"rank (\d+) on [^:]+: CPU, (\d+) CPU threads?, OpenMP on (\d+) threads?")


def same_tree(a, b):
    """The relative paths that differ between two folders (missing on one side or different bytes)."""
    def listing(root):
        found = set()
        for folder, _, files in os.walk(root):
            for name in files:
                found.add(os.path.relpath(os.path.join(folder, name), root))
        return found
    left, right = listing(a), listing(b)
    differ = sorted(left ^ right)
    differ += [p for p in sorted(left & right) if not filecmp.cmp(os.path.join(a, p), os.path.join(b, p), shallow=False)]
    return differ


def make_images(data, folder):
    """The test folder: real images, generated odd sizes and channel counts, a subfolder, a truncated file."""
    os.makedirs(os.path.join(folder, "more"))
    for name in GOOD:
        shutil.copy(os.path.join(data, name), folder)
    rng = np.random.default_rng(12)
    for name, shape in (("one.png", (1, 1, 3)), ("tall.png", (300, 7, 1)), ("wide.png", (5, 301, 4)),
                        ("ga.png", (61, 97, 2)), ("more/inner.png", (33, 45, 3)), ("more/deeper.png", (17, 13, 4))):
        png_io.write_png(os.path.join(folder, name), rng.integers(0, 256, shape, dtype=np.uint8))
    with open(os.path.join(data, "coffee.png"), "rb") as source:
        whole = source.read()
    with open(os.path.join(folder, "broken.png"), "wb") as broken:
        broken.write(whole[: len(whole) // 2])  # cut in the middle of its image data
    good = sorted([*GOOD, "one.png", "tall.png", "wide.png", "ga.png"])
    return [os.path.splitext(n)[0] + ".png" for n in good]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", required=True, help="the gausslab-filter executable")
    parser.add_argument("--mpiexec", default="", help="mpirun (Open MPI); the MPI checks are skipped without it")
    parser.add_argument("--data", default=os.path.join(HERE, "..", "data"), help="the tests/data folder")
    args = parser.parse_args()
    c = Checks(os.path.abspath(args.filter), args.mpiexec)
    cpu = ["--method", "cpu_separable", "--sigma", "1.7", "--border", "wrap", "--quiet"]

    with tempfile.TemporaryDirectory(prefix="gausslab-batch-") as work:
        images = os.path.join(work, "images")
        expected = make_images(os.path.abspath(args.data), images)
        join = lambda *p: os.path.join(work, *p)  # noqa: E731

        # A folder into an --out-dir that does not exist: made; the truncated file named; the rest written.
        loud = [a for a in cpu if a != "--quiet"]
        done = c.expect("folder input, missing --out-dir", [images, "--out-dir", join("single", "out"), *loud], 1,
                        ["broken.png", "truncated", "10 files"])
        written = sorted(os.listdir(join("single", "out")))
        c.check("folder: every good file written, none for the truncated one", written == expected,
                f"{written} != {expected}")
        c.check("folder: the subfolder is skipped without --recursive, and said so", "add --recursive" in done.stderr,
                done.stderr[-400:])
        c.check("folder: a progress line per file", done.stderr.count("/10 ") >= 10, done.stderr[-800:])
        c.check("folder: the progress names each file's channels", "ga.png  97×61 8-bit grey+alpha" in done.stderr,
                done.stderr[-800:])
        c.check("folder: no temporary file left", not [n for n in written if ".tmp-" in n], str(written))

        c.expect("--recursive keeps the tree", [images, "--recursive", "--out-dir", join("recursive"), *cpu], 1,
                 ["broken.png"])
        c.check("--recursive: the subfolder's images in out/more/",
                sorted(os.listdir(join("recursive", "more"))) == ["deeper.png", "inner.png"],
                str(os.listdir(join("recursive"))))
        differ = [p for p in same_tree(join("single", "out"), join("recursive")) if not p.startswith("more/")]
        c.check("--recursive: the top-level outputs equal the folder run's", not differ, str(differ))

        # An --out-dir inside the tree --recursive reads: refused on the first run, nothing written.
        before = sorted(os.path.relpath(os.path.join(d, f), images) for d, _, fs in os.walk(images) for f in fs)
        c.expect("--recursive --out-dir inside the input tree is refused up front",
                 [images, "--recursive", "--out-dir", os.path.join(images, "more", "out"), *cpu], 2,
                 ["is inside the input folder", "choose a folder outside"])
        c.expect("--out-dir the input folder itself is refused up front",
                 [images, "--out-dir", images, "--format", "tga", *cpu], 2, ["is the input folder"])
        after = sorted(os.path.relpath(os.path.join(d, f), images) for d, _, fs in os.walk(images) for f in fs)
        c.check("--out-dir among the inputs: nothing written or made in the input tree",
                before == after and not os.path.exists(os.path.join(images, "more", "out")), str(set(after) - set(before)))

        listed = [os.path.join(images, n) for n in ("tall.png", "camera.png", "ga.png")]
        stdin = "# three of them\n" + "\n".join(listed) + "\n\n"
        c.expect("--from-list -", ["--from-list", "-", "--list-comments", "--out-dir", join("listed"), *cpu], 0,
                 stdin=stdin)
        c.check("--from-list -: the listed files, as the folder run wrote them",
                all(filecmp.cmp(join("listed", n), join("single", "out", n), shallow=False)
                    for n in ("tall.png", "camera.png", "ga.png")) and len(os.listdir(join("listed"))) == 3,
                str(os.listdir(join("listed"))))

        # Other output formats: --format and --jpeg-quality reach the writer.
        for quality in ("40", "95"):
            c.expect(f"--format jpg --jpeg-quality {quality}", [os.path.join(images, "coffee.png"), "--out-dir",
                                                               join(f"jpg{quality}"), *cpu, "--format", "jpg",
                                                               "--jpeg-quality", quality], 0)
        low, high = (os.path.getsize(join(f"jpg{q}", "coffee.jpg")) for q in ("40", "95"))
        c.check("--jpeg-quality: quality 40 writes a smaller JPEG than 95", 0 < low < high, f"{low} and {high} bytes")
        c.expect("--format tga", [os.path.join(images, "ga.png"), "--out-dir", join("tga"), *cpu, "--format", "tga"], 0)
        c.check("--format tga: the output is there", os.path.exists(join("tga", "ga.tga")), str(os.listdir(join("tga"))))
        c.expect("--jpeg-quality 0 is refused", [images, "--out-dir", join("never"), *cpu, "--jpeg-quality", "0"], 2,
                 ["--jpeg-quality"])

        # Bands in one process: 4 bands against the single pass, every border.
        image = os.path.join(images, "chelsea.png")
        for border in BORDERS:
            params = ["--method", "cpu_separable", "--sigma", "3", "--border", border, "--quiet"]
            c.expect(f"single pass, {border}", [image, "-o", join(f"pass-{border}.png"), *params], 0)
            c.expect(f"4 bands, {border}", [image, "-o", join(f"bands-{border}.png"), *params, "--bands", "4"], 0)
            c.check(f"4 bands = single pass, {border}",
                    filecmp.cmp(join(f"pass-{border}.png"), join(f"bands-{border}.png"), shallow=False))

        if not args.mpiexec:
            print("--  no --mpiexec: the MPI checks are skipped (build with Open MPI: libopenmpi-dev, openmpi-bin)")
        else:
            done = c.expect("mpirun -np 3: the folder", [images, "--out-dir", join("mpi", "out"), *cpu], 1,
                            ["broken.png", "3 MPI ranks"], ranks=3)
            differ = same_tree(join("single", "out"), join("mpi", "out"))
            c.check("mpirun -np 3: byte-identical to the single process", not differ, str(differ))
            c.check("mpirun -np 3: rank 0 alone prints the summary", done.stderr.count("files done in") == 1,
                    done.stderr[-800:])
            c.expect("mpirun -np 3: --from-list -",
                     ["--from-list", "-", "--list-comments", "--out-dir", join("mpi-listed"), *cpu], 0,
                     ranks=3, stdin=stdin)
            differ = same_tree(join("listed"), join("mpi-listed"))
            c.check("mpirun -np 3 --from-list -: byte-identical", not differ, str(differ))

            # One image over 3 ranks, every border: the rows scattered with halos from the whole image.
            thin = os.path.join(work, "thin.png")  # 7 rows over 3 ranks, radius 8: halos span ranks and edges
            png_io.write_png(thin, np.random.default_rng(3).integers(0, 256, (7, 40, 4), dtype=np.uint8))
            for source, sigma in ((image, "3"), (thin, "2")):
                stem = os.path.splitext(os.path.basename(source))[0]
                for border in BORDERS:
                    params = ["--method", "cpu_separable", "--sigma", sigma, "--border", border, "--quiet"]
                    single = join(f"{stem}-single-{border}.png")
                    ranks = join(f"{stem}-ranks-{border}.png")
                    c.expect(f"{stem}: single pass, {border}", [source, "-o", single, *params], 0)
                    c.expect(f"{stem}: bands over 3 ranks, {border}", [source, "-o", ranks, *params], 0, ranks=3)
                    c.check(f"{stem}: 3 ranks = single pass, {border}",
                            os.path.exists(ranks) and filecmp.cmp(single, ranks, shallow=False))
            # Ranks on one host share its cores, for the pool and for OpenMP alike.
            share = max(1, (os.cpu_count() or 1) // 3)
            omp = ["--method", "cpu_openmp", "--sigma", "1.7", "--border", "wrap"]
            c.expect("one process, cpu_openmp: the folder", [images, "--out-dir", join("omp-single"), *omp, "--quiet"], 1)
            done = c.expect("mpirun -np 3, cpu_openmp: the folder", [images, "--out-dir", join("omp-files"), *omp], 1,
                            ranks=3)
            c.check_threads("mpirun -np 3, cpu_openmp over files", done.stderr, 3, share)
            differ = same_tree(join("omp-single"), join("omp-files"))
            c.check("mpirun -np 3, cpu_openmp over files: byte-identical to one process", not differ, str(differ))
            differ = same_tree(join("single", "out"), join("omp-files"))
            c.check("cpu_openmp over files = cpu_separable (the same float arithmetic)", not differ, str(differ))

            bands = [image, "--method", "cpu_openmp", "--sigma", "3", "--border", "mirror"]
            done = c.expect("bands over 3 ranks with cpu_openmp", [*bands, "-o", join("omp-ranks.png")], 0, ranks=3)
            c.check_threads("bands over 3 ranks with cpu_openmp", done.stderr, 3, share)
            c.check("cpu_openmp over 3 ranks = cpu_separable single pass (the same float arithmetic)",
                    filecmp.cmp(join("omp-ranks.png"), join("chelsea-single-mirror.png"), shallow=False))
            done = c.expect("bands over 3 ranks with cpu_openmp, --threads 2",
                            [*bands, "-o", join("omp-ranks-2.png"), "--threads", "2"], 0, ranks=3)
            c.check_threads("--threads 2 over 3 ranks", done.stderr, 3, 2, exactly=True)
            c.check("--threads 2 over 3 ranks: the same bytes",
                    filecmp.cmp(join("omp-ranks-2.png"), join("chelsea-single-mirror.png"), shallow=False))

    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
