"""Atomic writes of a JSON file and of a whole folder (standard library only, no torch).

Everything is first written under a hidden temporary name beside its target (so on the same
filesystem, and skipped by src/target/capture.c, which ignores names starting with "."), flushed to disk
with fsync, and only then renamed into place. A failure at any point before the rename leaves the
target as it was and removes the temporary.

    write_json(path, doc)           # path replaced by the complete document, or left alone
    with staged_dir(target) as tmp: # build the folder in tmp; on a clean exit it replaces target
        ...
    cleanup(target)                 # after a writer was killed: its temporaries removed
"""

import contextlib
import ctypes
import errno
import json
import os
import shutil
import tempfile

TMP_TAG = ".tmp-"   # .<name>.tmp-XXXXXX: a folder or file being built
OLD_TAG = ".old-"   # .<name>.old-XXXXXX: the replaced folder, until it is deleted


def fsync_dir(path):
    """Makes a rename or a new entry in the folder path durable."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _parent(path):
    return os.path.dirname(os.path.abspath(path))


def write_json(path, doc):
    """Writes doc to path atomically: a temporary file beside it, fsynced, renamed over path, the
    folder fsynced. On any failure path is unchanged and no temporary is left behind."""
    parent = _parent(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}{TMP_TAG}", dir=parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600; give it an ordinary file's mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(parent)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fsync_tree(root):
    """fsyncs every file and folder under root (root included)."""
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                continue
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(dirpath)


_RENAME_EXCHANGE = 2  # linux/fs.h


def _exchange(a, b):
    """Swaps the names a and b in one step (Linux renameat2 RENAME_EXCHANGE). False when this
    system or filesystem cannot; raises OSError for any other failure."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), a, None, b)


def replace_dir(src, target):
    """Puts the complete folder src in target's place, the old target (if any) deleted only once
    src is there. Where the system can swap two names in one step there is no moment without a
    target; elsewhere the old one is renamed aside just before and put back if the second rename
    fails."""
    parent = _parent(target)
    if not os.path.lexists(target):
        os.rename(src, target)
        fsync_dir(parent)
        return
    if _exchange(src, target):
        old = src  # src now names the old folder
    else:
        old = tempfile.mkdtemp(prefix=f".{os.path.basename(target)}{OLD_TAG}", dir=parent)
        os.rmdir(old)  # a unique free name, on the same filesystem
        os.rename(target, old)
        try:
            os.rename(src, target)
        except BaseException:
            os.rename(old, target)
            raise
    fsync_dir(parent)
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def staged_dir(target):
    """Yields a new empty hidden folder beside target. When the block ends without an exception,
    its files are fsynced and it replaces target (replace_dir); when it raises, the folder is
    removed and target is left as it was."""
    parent = _parent(target)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(target)}{TMP_TAG}", dir=parent)
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it 0700; give it an ordinary mode
        fsync_tree(tmp)
        replace_dir(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def leftovers(target):
    """The temporaries of target's writers still in its folder: (building, replaced)."""
    parent, base = _parent(target), os.path.basename(target)
    try:
        names = os.listdir(parent)
    except FileNotFoundError:
        return [], []
    pick = lambda tag: sorted(os.path.join(parent, n) for n in names  # noqa: E731
                              if n.startswith(f".{base}{tag}"))
    return pick(TMP_TAG), pick(OLD_TAG)


def cleanup(target):
    """After a writer of target died (killed on a timeout), removes what it was building; an old
    folder it had renamed aside goes back in place if target is missing, else it is removed."""
    building, replaced = leftovers(target)
    for path in building:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)
    for path in replaced:
        if not os.path.lexists(target):
            os.rename(path, target)
        else:
            shutil.rmtree(path, ignore_errors=True)
