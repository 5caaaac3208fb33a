"""The kernel a batch runs notebooks in: this very Python, over IPC, with HTML escaping on, killable.

* :func:`default_kernel` writes a kernel spec for the running interpreter into its prefix (the venv).
* :class:`BatchKernelManager` talks to the kernel over Unix sockets (IPC transport) in a private temporary
  folder, instead of TCP on loopback: nothing listens on a port, and ipykernel's "running over TCP without
  encryption" warning is not printed once per notebook into the batch's progress output.
* :data:`KERNEL_STARTUP` runs at kernel start (``--IPKernelApp.exec_lines``): pandas Styler tables escape their
  cells for HTML (:mod:`evalkit.display.html_safety`) in every notebook, whatever the notebook itself sets up.
* :func:`kernel_log` sends what a kernel process writes outside the notebook (its own log lines, a trial
  worker's traceback, a shutdown after a cell timed out) to a file instead of the batch's terminal.
* :func:`stop_live_kernels` ends every kernel the batch started (and the trial workers they started: each
  kernel leads its own process group), for an interrupted batch.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import time
import weakref
from pathlib import Path

from jupyter_client import AsyncKernelManager
from traitlets import default

from evalkit.display.html_safety import PANDAS_ESCAPE_CODE

__all__ = ["default_kernel", "BatchKernelManager", "KERNEL_STARTUP", "kernel_log", "launch_options",
           "stop_live_kernels"]

KERNEL_STARTUP = [f"--IPKernelApp.exec_lines={PANDAS_ESCAPE_CODE}"]
_LIVE: "weakref.WeakSet[BatchKernelManager]" = weakref.WeakSet()


def default_kernel() -> str:
    """A kernel spec named ``evalkit`` for this very Python, written into its prefix (the venv) on first use."""
    name = "evalkit"
    spec_file = Path(sys.prefix) / "share" / "jupyter" / "kernels" / name / "kernel.json"
    wanted = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
              "display_name": "Python (evalkit)", "language": "python"}
    try:
        current = json.loads(spec_file.read_text()).get("argv") if spec_file.is_file() else None
    except (OSError, ValueError):
        current = None
    if current != wanted["argv"]:
        spec_file.parent.mkdir(parents=True, exist_ok=True)
        temporary = spec_file.with_name(f".kernel.json.tmp{os.getpid()}")
        temporary.write_text(json.dumps(wanted, indent=1))
        os.replace(temporary, spec_file)
    return name


class BatchKernelManager(AsyncKernelManager):
    """A kernel manager on the IPC transport, its sockets in a private folder removed at shutdown."""

    @default("transport")
    def _default_transport(self) -> str:
        return "ipc"

    @default("ip")
    def _default_ip(self) -> str:
        # Unix socket paths are limited to ~100 bytes: a short folder under the system's temp dir, not the
        # Jupyter runtime dir (which can be deep)
        self._socket_dir = tempfile.mkdtemp(prefix="evalkit-kernel-")
        return os.path.join(self._socket_dir, "k")

    def __init__(self, **kwargs):
        self._socket_dir = None
        super().__init__(**kwargs)
        _LIVE.add(self)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        if _LOG["path"] is not None:
            handle = open(_LOG["path"], "ab")  # the kernel process holds its own copy of the descriptor
            try:
                kw.setdefault("stdout", handle)
                kw.setdefault("stderr", handle)
                await super()._async_launch_kernel(kernel_cmd, **kw)
            finally:
                handle.close()
        else:
            await super()._async_launch_kernel(kernel_cmd, **kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart and self._socket_dir:
            shutil.rmtree(self._socket_dir, ignore_errors=True)

    def kernel_pid(self) -> int | None:
        process = getattr(self.provisioner, "process", None) if self.provisioner is not None else None
        return getattr(process, "pid", None)


_LOG: dict = {"path": None}


class kernel_log:
    """``with kernel_log(path):`` kernels started inside write their process output to ``path`` (appended)."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        self.previous, _LOG["path"] = _LOG["path"], self.path

    def __exit__(self, *exc):
        _LOG["path"] = self.previous


def launch_options(kernel_name: str) -> dict:
    """papermill/nbclient options for ``kernel_name``: IPC and the startup lines for an IPython kernel (the kit's
    own, or any spec that runs ipykernel); nothing for other kernels, which may know neither."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        argv = KernelSpecManager().get_kernel_spec(kernel_name).argv
    except NoSuchKernel:
        return {}  # papermill will say the kernel does not exist
    if not any("ipykernel" in str(part) for part in argv):
        return {}
    return {"kernel_manager_class": BatchKernelManager, "extra_arguments": list(KERNEL_STARTUP)}


def stop_live_kernels(grace_seconds: float = 3.0) -> None:
    """Terminate every kernel a :class:`BatchKernelManager` started (its whole process group), then kill what is
    still there after ``grace_seconds``; remove their socket folders."""
    groups = []
    for manager in list(_LIVE):
        pid = manager.kernel_pid()
        if pid is None:
            continue
        try:
            group = os.getpgid(pid)
        except ProcessLookupError:
            continue
        if group == os.getpgrp():  # never signal our own group
            group = None
        groups.append((pid, group))
        _signal(pid, group, signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    for pid, group in groups:
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)
        _signal(pid, group, signal.SIGKILL)
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    for manager in list(_LIVE):
        if manager._socket_dir:
            shutil.rmtree(manager._socket_dir, ignore_errors=True)


def _signal(pid: int, group: int | None, signum: int) -> None:
    try:
        if group is not None:
            os.killpg(group, signum)
        else:
            os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _alive(pid: int) -> bool:
    try:
        finished, _ = os.waitpid(pid, os.WNOHANG)
        if finished:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
