#!/usr/bin/env python3
"""Write a UEFI boot entry (Boot####) for efivarfs: 4 attribute bytes, then
an EFI_LOAD_OPTION (UEFI spec 3.1.3) whose device path is a lone file path
node (EDK2's boot manager expands it over every file system it finds) and
whose optional data is the kernel command line in UCS-2, which the kernel's
EFI stub reads as its command line.
Usage: efi-load-option.py OUT DESCRIPTION \\PATH\\ON\\ESP CMDLINE"""
import struct
import sys

NV_BS_RT = 0x7
LOAD_OPTION_ACTIVE = 0x1


def ucs2(s):
    return (s + "\0").encode("utf-16-le")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    out, desc, path, cmdline = sys.argv[1:]
    name = ucs2(path)
    # Media device path (4), file path (4); then the end of the whole path.
    devpath = struct.pack("<BBH", 4, 4, 4 + len(name)) + name + struct.pack("<BBH", 0x7F, 0xFF, 4)
    option = struct.pack("<IH", LOAD_OPTION_ACTIVE, len(devpath)) + ucs2(desc) + devpath + ucs2(cmdline)[:-2]
    with open(out, "wb") as f:
        f.write(struct.pack("<I", NV_BS_RT) + option)


main()
