"""Every byte ccexport puts into a vault goes through here.

A vault may be shared or synced (Syncthing, git, a shared drive), so anyone who can put a
file in it may have planted a symbolic link, a FIFO or a temp name. The rules:

- Every folder below the vault's root is opened relative to its parent without following
  a link (``O_NOFOLLOW``), and created the same way when missing: a linked folder is refused.
- A file is replaced by a temp file with an unpredictable name, created with
  ``O_CREAT|O_EXCL|O_NOFOLLOW``, written, fsynced and renamed over the target; then the
  folder is fsynced, so the rename itself survives a power cut (a caller writing many files
  may fsync each folder once, with ``vaultbatch.sync_folders``, before it records them as
  written, and write them as a ``vaultbatch.WriteBatch``, whose fsyncs run side by side).
  A failed write or rename removes the temp file. The replaced file keeps its permission
  bits (600 stays 600).
- A file written in place (the lock, a log) must have no other hard link. Everything else
  is replaced by a rename, so a planted hard link is never written through.
- A link, FIFO, device or folder where a file is expected is refused with
  :class:`UnsafePathError`, never written through or over. Files are opened for reading with
  ``O_NONBLOCK`` and checked with ``fstat`` before a byte is read, so a FIFO named ``x.md``
  cannot hang a run.

The vault's root itself is the folder the user named (it may be reached through a link).
Without ``dir_fd`` support (Windows) every component is checked with ``lstat`` instead.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import ConfigError, ExporterError

TEMP_PREFIX = ".ccexport-"
TEMP_SUFFIX = ".tmp"
STATE_DIR = ".ccexport"
_DIRFD = os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)


class UnsafePathError(ExporterError, OSError):
    """A path ccexport would write or read is a link, FIFO, device or folder."""

    def __str__(self) -> str:  # its words alone: "[Errno 40]" tells the person nothing
        return str(self.strerror) if self.strerror else super().__str__()


# A folder in the vault that is a link (the notes folder kept in Dropbox, linked in): every
# file below it fails alike, so the run says it once, with what to do (``NoteWriter``).
LINKED_FOLDER = (
    "is a symbolic link; ccexport never writes through a link, so nothing below it is "
    "written: point --vault at the vault that holds the real folder, or put the folder "
    "itself in its place (move its files in, then remove the link)"
)


def temp_name() -> str:
    """A name nobody can predict, so nobody can plant a link under it in advance."""
    return f"{TEMP_PREFIX}{secrets.token_hex(8)}{TEMP_SUFFIX}"


def is_temp_name(name: str) -> bool:
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)


def _parts(relpath: str) -> list[str]:
    parts = [p for p in relpath.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise UnsafePathError(errno.EINVAL, f"not a path inside the vault: {relpath!r}")
    return parts


def _refusal(
    root: Path, rel: str, st: os.stat_result | None, folder: bool = False
) -> UnsafePathError:
    """Why ``rel`` is refused; ``folder``: it stands where the path needs a folder."""
    where = root / rel
    if st is not None and stat.S_ISLNK(st.st_mode) and folder:
        why = LINKED_FOLDER
    elif st is not None and stat.S_ISLNK(st.st_mode):
        why = "is a symbolic link; ccexport never writes through a link"
    elif st is not None and stat.S_ISREG(st.st_mode) and folder:
        why = "is a file, not a folder; ccexport does not replace it: move it away"
    elif st is not None and stat.S_ISREG(st.st_mode):
        why = "has other hard links; ccexport never writes into a file shared with another path"
    elif st is not None and stat.S_ISDIR(st.st_mode):
        why = "is a folder, not a file"
    else:
        why = "is not a regular file (a FIFO, socket or device); ccexport does not open it"
    return UnsafePathError(errno.ELOOP, f"{where} {why}")


def make_vault(root: Path) -> None:
    """Make the vault's own folder, not its parents: a parent that is missing is most often
    a drive or share not mounted (``/media/me/USB/Notes``), and making it would put a second
    vault on the internal disk, under the mount point."""
    root = Path(os.path.abspath(root.expanduser()))
    if os.path.isdir(root):
        return
    if not os.path.isdir(root.parent):
        raise ConfigError(
            f"{root.parent} does not exist, so {root.name} is not made there (a drive or "
            "share not mounted?); mount it, or make the folder first, or correct the folder "
            "given (--vault, or --to of `templates init`)"
        )
    try:
        root.mkdir()
    except FileExistsError:  # (made meanwhile by another run; a file there is said later)
        pass


@contextmanager
def _folder(root: Path, parts: list[str], create: bool) -> Iterator[int | Path]:
    """The folder ``root/parts`` opened without following links: a descriptor, or (without
    dir_fd support) a checked path. Raises FileNotFoundError when missing and not ``create``."""
    if create and not os.path.isdir(root):
        make_vault(root)  # the vault itself, as the user named it
    if not _DIRFD:
        path = root
        for i, name in enumerate(parts):
            path = path / name
            if create:
                try:
                    os.mkdir(path)
                except FileExistsError:
                    pass
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or _is_link(path, st):
                raise _refusal(root, "/".join(parts[: i + 1]), st, folder=True)
        yield path
        return
    fd = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for i, name in enumerate(parts):
            try:
                try:
                    child = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    try:  # made only when missing: most writes go to folders that exist
                        os.mkdir(name, 0o777, dir_fd=fd)
                    except FileExistsError:
                        pass
                    child = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                raise _refusal(root, "/".join(parts[: i + 1]), st, folder=True) from None
            # Swapped before the close: a Ctrl-C right after it must not close it twice
            # (the number may already be another file's, and EBADF would hide the Ctrl-C).
            parent, fd = fd, child
            os.close(parent)
        yield fd
    finally:
        os.close(fd)


def _lstat(folder: int | Path, name: str) -> os.stat_result | None:
    try:
        if isinstance(folder, Path):
            return os.lstat(folder / name)
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _open(folder: int | Path, name: str, flags: int, mode: int = 0o666) -> int:
    if isinstance(folder, Path):  # no O_NOFOLLOW here (Windows): look before opening
        st = _lstat(folder, name)
        if st is not None and _is_link(folder / name, st):
            raise OSError(errno.ELOOP, "a link", str(folder / name))
        return os.open(folder / name, flags | _BINARY, mode)
    return os.open(name, flags, mode, dir_fd=folder)


def _is_link(path: Path, st: os.stat_result) -> bool:
    """A symbolic link, or on Windows any reparse point (a junction too)."""
    return (
        stat.S_ISLNK(st.st_mode) or os.path.islink(path) or bool(getattr(st, "st_reparse_tag", 0))
    )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def kind(root: Path, relpath: str) -> str:
    """What is at a vault path, without following a link: ``missing``, ``file``, ``link``,
    ``folder``, ``other`` (FIFO, device), or ``blocked`` (a folder on the way is a link or
    not a folder: nothing can be written there)."""
    *dirs, name = _parts(relpath)
    try:
        with _folder(root, dirs, create=False) as folder:
            st = _lstat(folder, name)
    except FileNotFoundError:
        return "missing"
    except (UnsafePathError, NotADirectoryError):
        return "blocked"
    if st is None:
        return "missing"
    if stat.S_ISREG(st.st_mode):
        return "file"
    if stat.S_ISLNK(st.st_mode):
        return "link"
    return "folder" if stat.S_ISDIR(st.st_mode) else "other"


def read_file(root: Path, relpath: str, limit: int = -1) -> tuple[bytes, os.stat_result] | None:
    """The bytes of a regular file in the vault (at most ``limit``) and its stat; None when
    nothing is there. A link, FIFO or device raises UnsafePathError, unread."""
    *dirs, name = _parts(relpath)
    try:
        with _folder(root, dirs, create=False) as folder:
            try:
                fd = _open(folder, name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
            except FileNotFoundError:
                return None
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.EMLINK, errno.ENXIO):
                    raise
                raise _refusal(root, relpath, _lstat(folder, name)) from None
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refusal(root, relpath, st)
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(limit), st
    finally:
        os.close(fd)


def write_file(
    root: Path, relpath: str, data: bytes, *, sync_folder: bool = True
) -> os.stat_result:
    """Replace (or create) a file in the vault atomically; see the module rules. Returns the
    stat of what was written. ``sync_folder=False``: the caller syncs the folder later."""
    *dirs, name = _parts(relpath)
    with _folder(root, dirs, create=True) as folder:
        fd, tmp, written = _write_temp(root, relpath, folder, name, data)
        try:
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            _rename(folder, tmp, name)
        except OSError as exc:
            _discard(folder, tmp)
            raise said_of_target(exc, root, relpath) from None
        except BaseException:
            _discard(folder, tmp)
            raise
        if sync_folder:
            _sync_folder(folder)
        return written


def _write_temp(
    root: Path, relpath: str, folder: int | Path, name: str, data: bytes
) -> tuple[int, str, os.stat_result]:
    """A new temp file beside ``name`` holding ``data`` with the old file's permission
    bits: (its open descriptor, its name, its stat). Nothing is left behind on failure."""
    old = _lstat(folder, name)
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise _refusal(root, relpath, old)
    tmp = temp_name()
    try:
        fd = _open(folder, tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666)
    except OSError as exc:
        raise said_of_target(exc, root, relpath) from None
    try:
        if old is not None and hasattr(os, "fchmod"):
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
        _write_all(fd, data)
        return fd, tmp, os.fstat(fd)
    except BaseException as exc:
        os.close(fd)
        _discard(folder, tmp)
        if isinstance(exc, OSError):
            raise said_of_target(exc, root, relpath) from None
        raise


def said_of_target(exc: OSError, root: Path, relpath: str) -> OSError:
    """An error about a temp file, said of the file it was to replace: the person never saw
    the temp name (``.ccexport-6b5b….tmp: permission denied``), only the note's."""
    named = os.path.basename(str(exc.filename or ""))
    if isinstance(exc, UnsafePathError) or not is_temp_name(named):
        return exc
    return OSError(exc.errno, exc.strerror, str(root / relpath))


def _rename(folder: int | Path, tmp: str, name: str) -> None:
    if isinstance(folder, Path):
        os.replace(folder / tmp, folder / name)
    else:
        os.rename(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)


def rename_file(root: Path, relpath: str, name: str) -> bool:
    """Rename a file of the vault to ``name`` in its own folder, never through a link and
    never over anything there (False then, or when it is gone)."""
    *dirs, old = _parts(relpath)
    with _folder(root, dirs, create=False) as folder:
        if _lstat(folder, name) is not None or _lstat(folder, old) is None:
            return False
        _rename(folder, old, name)
        return True


def append_file(root: Path, relpath: str, data: bytes) -> None:
    """Add to the end of a file in the vault (a log), creating it; never through a link."""
    *dirs, name = _parts(relpath)
    with _folder(root, dirs, create=True) as folder:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _NONBLOCK
        try:
            fd = _open(folder, name, flags, 0o666)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.EMLINK, errno.ENXIO):
                raise
            raise _refusal(root, relpath, _lstat(folder, name)) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:  # written in place: no sharing
                raise _refusal(root, relpath, st)
            _write_all(fd, data)
        finally:
            os.close(fd)


def open_lock_file(root: Path, relpath: str) -> int:
    """A read-write descriptor on the vault's lock file, created if missing; never a link."""
    *dirs, name = _parts(relpath)
    with _folder(root, dirs, create=True) as folder:
        try:
            fd = _open(folder, name, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _NONBLOCK, 0o644)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.EMLINK, errno.ENXIO):
                raise
            raise _refusal(root, relpath, _lstat(folder, name)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:  # truncated in place: no sharing
        os.close(fd)
        raise _refusal(root, relpath, st)
    return fd


def remove_file(root: Path, relpath: str) -> bool:
    """Remove a file (or a link itself) in the vault; False if nothing was there."""
    *dirs, name = _parts(relpath)
    try:
        with _folder(root, dirs, create=False) as folder:
            return _remove(folder, name)
    except (FileNotFoundError, NotADirectoryError):
        return False


# Temp files a failure left in place (their folder made read-only meanwhile), this run.
left_behind: list[str] = []


def _discard(folder: int | Path, tmp: str) -> None:
    """Remove a temp file of ours after a failure, never raising in its place (the failure
    that brought us here is the one reported, for its note alone): one that stays, a dot
    file, is counted in ``left_behind`` and swept by the next run."""
    try:
        _remove(folder, tmp)
    except OSError:
        left_behind.append(tmp)


def _remove(folder: int | Path, name: str) -> bool:
    try:
        if isinstance(folder, Path):
            os.unlink(folder / name)
        else:
            os.unlink(name, dir_fd=folder)
    except FileNotFoundError:
        return False
    return True


def _sync_folder(folder: int | Path) -> None:
    if isinstance(folder, Path):
        return  # Windows: a folder cannot be opened for fsync
    try:
        os.fsync(folder)
    except OSError as exc:  # some file systems (network, FUSE) cannot sync a folder
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise


def anchored(path: Path) -> tuple[Path, str]:
    """(root, relative path) for a file given by its full path (a log, a templates copy).
    Inside a vault's ``.ccexport`` folder the vault is the root, so no link below it is
    followed; elsewhere the root is the file's own folder, as the user named it."""
    path = Path(os.path.abspath(path.expanduser()))
    parts = path.parts
    inside = [i for i, part in enumerate(parts[:-1]) if part == STATE_DIR]
    if inside:
        at = inside[-1]
        return Path(*parts[:at]), "/".join(parts[at:])
    return path.parent, path.name


def write_path(path: Path, data: bytes) -> os.stat_result:
    return write_file(*anchored(path), data)


def append_path(path: Path, data: bytes) -> None:
    append_file(*anchored(path), data)
