"""The compiled build (docs/compiled.md): mypyc compiles the core, the games and the search agents
from the same typed source when a C compiler works; otherwise gamester installs as pure Python.

Everything else about the package is in pyproject.toml. What this file decides:

* ``pip install .`` (a wheel) compiles the modules of :func:`compiled_modules` when a C compiler and
  the Python headers work, and says on stderr in one line when it falls back to pure Python (no
  compiler, mypyc refusing the source, a compile step failing).
* ``GAMESTER_PURE=1`` forces pure Python. Editable installs (``pip install -e .``) stay pure unless
  ``GAMESTER_COMPILE=1``: a stale extension next to an edited ``.py`` would silently run the old code.
* Metadata-only steps (egg_info, dist_info) compile nothing.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"

# What is compiled: globs over the package, relative to src/.
INCLUDE = (
    "gamester/core/*.py",
    "gamester/games/*.py",
    "gamester/games/*/*.py",
    "gamester/agents/*.py",
)
# What mypyc cannot or should not take, each with its reason.
EXCLUDE = {
    # Its .pyi stub is what mypy reads (type-variable defaults, mypyc_attr); compiled, the stub's
    # imports would run. It holds no code worth compiling.
    "gamester/core/_mypyc.py": "typing helpers whose stub is for the type checker only",
    # The agents' registry and the interface other packages subclass (entry points, tests' views):
    # nothing hot, and interpreted subclasses of compiled classes cost every call.
    "gamester/agents/__init__.py": "registry of agent specs, nothing hot",
    # load_game(spec, /, **options): compiled, mypyc's argument parser takes an option named "spec"
    # for the positional-only parameter and raises its own TypeError; the registry is nothing hot.
    "gamester/core/registry.py": "load_game's positional-only spec beside **options",
    # The learned agent's work is numpy's matrix products over the compiled game's observation;
    # compiled, its few lines of glue would gain nothing.
    "gamester/agents/learned.py": "a numpy forward pass, nothing for mypyc to speed up",
    # Policy inference's opponent model: the same network's forward pass over many worlds at once.
    "gamester/agents/opponent.py": "numpy forward passes, nothing for mypyc to speed up",
}
# The same, for a part every game's folder may hold (a glob relative to src/), with its reason.
EXCLUDE_GLOBS = {
    # A game's terminal drawing: text for one screen per move, nothing hot; interpreted, it stays as
    # easy to change as the rest of the terminal.
    "gamester/games/*/render.py": "terminal drawing, nothing hot",
}

NOTICE = "gamester: installing the pure-Python build"
# A wheel is compiled whenever it can be: the compiled build refuses bad input as the pure one does
# (docs/compiled.md, "Known differences" says what is left). False makes compiling opt-in again
# (GAMESTER_COMPILE=1).
COMPILE_BY_DEFAULT = True


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def compiled_modules() -> list[str]:
    """The source files to compile (relative to src/), sorted; the exclusions left out.

    ``GAMESTER_COMPILE_ONLY`` (globs relative to src/, separated by spaces) narrows the list for a
    developer's quicker experiment build, e.g. ``gamester/core/*.py gamester/games/pentyrch/*.py``;
    the modules left out run interpreted beside the compiled ones.
    """
    found: set[str] = set()
    for pattern in os.environ.get("GAMESTER_COMPILE_ONLY", "").split() or INCLUDE:
        found.update(p.relative_to(SRC).as_posix() for p in SRC.glob(pattern))
    excluded = set(EXCLUDE)
    for pattern in EXCLUDE_GLOBS:
        excluded.update(p.relative_to(SRC).as_posix() for p in SRC.glob(pattern))
    return sorted(found - excluded)


def _wants_extensions(argv: list[str]) -> tuple[bool, str]:
    """Whether this setup.py run builds code (and so may compile), and why not if not."""
    commands = {a for a in argv[1:] if not a.startswith("-")}
    if not commands & {"bdist_wheel", "build", "build_ext", "install", "editable_wheel", "develop"}:
        return False, ""  # metadata only: nothing to build, nothing to say
    if _flag("GAMESTER_PURE"):
        return False, "GAMESTER_PURE is set"
    if commands & {"editable_wheel", "develop"} and not _flag("GAMESTER_COMPILE"):
        return False, "an editable install stays pure Python (GAMESTER_COMPILE=1 compiles it)"
    if not COMPILE_BY_DEFAULT and not _flag("GAMESTER_COMPILE"):
        return False, "the compiled build is opt-in for now (GAMESTER_COMPILE=1; docs/compiled.md)"
    return True, ""


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def _compiler_problem() -> str | None:
    """None if a C compiler builds a Python extension here, else what is wrong (one line)."""
    include = sysconfig.get_paths().get("include", "")
    if not os.path.exists(os.path.join(include, "Python.h")):
        return f"no Python headers ({include}/Python.h is missing)"
    try:
        from setuptools._distutils.ccompiler import new_compiler
        from setuptools._distutils.sysconfig import customize_compiler

        cc: Any = new_compiler()
        customize_compiler(cc)
        name = " ".join(getattr(cc, "compiler_so", None) or ["cc"])[:40].split()[0]
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "probe.c")
            with open(src, "w") as f:
                f.write("#include <Python.h>\nint gamester_probe(void) { return Py_IsInitialized(); }\n")
            cc.compile([src], output_dir=tmp, include_dirs=[include])
    except Exception as e:  # any failure at all means: no working compiler
        return f"no working C compiler ({type(e).__name__} from {locals().get('name', 'the compiler')})"
    return None


class BuildExt(build_ext):
    """Builds the compiled modules, each one's C files in parallel; a compiler failing half way
    leaves pure Python."""

    def run(self) -> None:
        self._drop_stale_extensions()
        try:
            super().run()
        except Exception as e:
            _say(f"{NOTICE}: compiling failed ({' '.join(str(e).split())[:160]})")
            self.extensions = []

    def _drop_stale_extensions(self) -> None:
        """A tree built before keeps its ``build/lib``: an extension of an earlier build that this one
        does not make (a module since excluded, a narrower ``GAMESTER_COMPILE_ONLY``, an older group
        library) would go into the wheel beside the new ones, shadow its ``.py`` and load a second
        copy of the core's classes."""
        wanted = {Path(self.get_ext_filename(ext.name)).as_posix() for ext in self.extensions}
        root = Path(self.build_lib)
        for suffix in EXTENSION_SUFFIXES:
            for found in [*root.glob(f"gamester/**/*{suffix}"), *root.glob(f"*__mypyc*{suffix}")]:
                if found.relative_to(root).as_posix() not in wanted:
                    found.unlink()

    def build_extension(self, ext: Any) -> None:
        # mypyc puts most of the code in one extension of many C files; distutils compiles an
        # extension's files one after another, so they are handed to a pool here.
        serial = self.compiler.compile
        workers = os.cpu_count() or 1

        def compile_all(sources: list[str], output_dir: str | None = None, **kw: Any) -> list[str]:
            if workers < 2 or len(sources) < 2:
                return serial(sources, output_dir=output_dir, **kw)
            for obj in self.compiler.object_filenames(sources, output_dir=output_dir or ""):
                os.makedirs(os.path.dirname(obj) or ".", exist_ok=True)
            with ThreadPoolExecutor(workers) as pool:
                parts = pool.map(lambda src: serial([src], output_dir=output_dir, **kw), sources)
                return [obj for part in parts for obj in part]

        self.compiler.compile = compile_all  # extensions are built one at a time (no -j)
        try:
            super().build_extension(ext)
        finally:
            self.compiler.compile = serial


def _ext_modules() -> list[Any]:
    wanted, why = _wants_extensions(sys.argv)
    if not wanted:
        if why:
            _say(f"{NOTICE}: {why}")
        return []
    problem = _compiler_problem()
    if problem:
        _say(f"{NOTICE}: {problem}")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say(f"{NOTICE}: mypyc is not installed (it comes with mypy, a build requirement)")
        return []
    cwd = os.getcwd()
    os.chdir(SRC)  # mypyc names modules by their paths
    try:
        exts: list[Any] = mypycify(
            [*compiled_modules(), f"--cache-dir={HERE / 'build' / 'mypy_cache'}"],
            opt_level=os.environ.get("GAMESTER_OPT_LEVEL", "3"),
            multi_file=True,  # several C files, so the build can use every core
            target_dir=str(HERE / "build" / "mypyc"),
        )
    except BaseException as e:  # mypy's type errors end in SystemExit
        _say(f"{NOTICE}: mypyc refused the source ({' '.join(str(e).split())[:160]})")
        return []
    finally:
        os.chdir(cwd)
    for ext in exts:  # mypyc's paths are relative to src/
        ext.sources = [s if os.path.isabs(s) else str(SRC / s) for s in ext.sources]
    _say(f"gamester: compiling {len(compiled_modules())} modules with mypyc")
    return exts


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": BuildExt})
