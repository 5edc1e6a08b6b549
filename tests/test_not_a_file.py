"""A path where a source file belongs that is something else is said as what it is."""

import os
import socket
import stat

import pytest

from exporter.adapters.base import not_a_file, read_regular


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        (stat.S_IFDIR | 0o755, "a folder, not a file"),
        (stat.S_IFIFO | 0o644, "a named pipe, not a file"),
        (stat.S_IFSOCK | 0o755, "a socket, not a file"),
        (stat.S_IFCHR | 0o666, "a device, not a file"),
        (stat.S_IFBLK | 0o660, "a device, not a file"),
    ],
)
def test_each_kind_of_path_is_named(mode, said):
    assert not_a_file(mode) == said


def test_reading_a_folder_or_a_device_says_which(tmp_path):
    with pytest.raises(OSError) as folder:
        read_regular(tmp_path)
    assert folder.value.strerror == "a folder, not a file"
    if os.path.exists(os.devnull) and stat.S_ISCHR(os.stat(os.devnull).st_mode):
        with pytest.raises(OSError) as device:
            read_regular(os.devnull)
        assert device.value.strerror == "a device, not a file"


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets are POSIX")
def test_a_socket_is_never_opened(tmp_path):
    path = tmp_path / "s.jsonl"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(OSError) as raised:
            read_regular(path)
    assert raised.value.filename == str(path)
