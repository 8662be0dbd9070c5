#!/usr/bin/python3
"""prfcorrupt: a recording with one malformed sample, and counts after it.

usage: prfcorrupt IN OUT N [plain|unknown|hold PAIRS|spread]

Copies the perfregs recording IN to OUT with sample N (0-based, in file
order; none if N is -1) made malformed: bit 63 of its iregs_mask, a register no layout
has.  Right after its item it adds what one thread never counts, as it
stops at the malformed sample: a kernel record item with a loss of 5
samples (cause 0), and a side-band loss of 7 events (with N -1: before
the end item; with plain, nothing).  With unknown (and N -1), only
an item of a type no tool knows yet (99), of 300 KiB, longer than the
decoder's window, after every 500th kernel record item: each is gone
past unread.  With hold PAIRS (and N -1): IN's items before its first
kernel record, then PAIRS times a kernel record item with one loss and
an unknown item of 300 KiB (a hole in OUT: it costs no disk), then
IN's end item; with --threads, each record is in a window of its own.
With spread (and N -1): IN with each kernel record in an item of its
own, followed by an unknown item of 300 KiB, the other items in place.
Prints the file offset of the malformed sample, which
the decoder's error names.

The layout is tools/perfregs-dump/rec-format.h's: the file header
(header_size at offset 8), then items of struct item { u32 type; u32
size; } and their bodies; a kernel record item's body is the CPU, 4
bytes of padding and records of struct perfregs_rec_header { u32 type;
u32 size; }.
"""
import struct
import sys

ITEM_KREC, ITEM_END, ITEM_SB = 5, 6, 7
REC_SAMPLE, REC_LOST = 1, 2
SB_LOST = 5
LOST_SLOTS = 8
IREGS_MASK = 40		# offsetof(struct perfregs_rec_sample, iregs_mask)


def main():
    src, dst, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
    plain = sys.argv[4:] == ["plain"]
    data = bytearray(open(src, "rb").read())
    if sys.argv[4:] == ["unknown"]:
        unknown(data, dst)
        return
    if sys.argv[4:5] == ["hold"]:
        hold(data, dst, int(sys.argv[5]))
        return
    if sys.argv[4:] == ["spread"]:
        spread(data, dst)
        return
    off = struct.unpack_from("<I", data, 8)[0]
    seen, bad, end, after = 0, None, None, None
    while off < len(data):
        typ, size = struct.unpack_from("<II", data, off)
        if size < 8 or off + size > len(data):
            sys.exit("prfcorrupt: bad item at %d" % off)
        if typ == ITEM_END:
            end = off
            break
        if typ == ITEM_KREC and bad is None and want >= 0:
            r = off + 16
            while r < off + size:
                rtype, rsize = struct.unpack_from("<II", data, r)
                if rtype == REC_SAMPLE:
                    if seen == want:
                        mask = struct.unpack_from("<Q", data, r + IREGS_MASK)[0]
                        struct.pack_into("<Q", data, r + IREGS_MASK, mask | 1 << 63)
                        bad, after = r, off + size
                        break
                    seen += 1
                r += rsize
        off += size
    if (bad is None and want >= 0) or end is None:
        sys.exit("prfcorrupt: no sample %d, or no end item" % want)
    lost = struct.pack("<IIQ", REC_LOST, 16 + 8 * LOST_SLOTS, 1) + \
        struct.pack("<%dQ" % LOST_SLOTS, 5, *([0] * (LOST_SLOTS - 1)))
    krec = struct.pack("<IIII", ITEM_KREC, 16 + len(lost), 0, 0) + lost
    # struct item_sb: kind, pid, ppid, prot, time, start, end, pgoff,
    # build_id_len, build_id[20]; then the name "" padded to 8
    body = struct.pack("<IIIIQQQQI20s", SB_LOST, 0, 0, 0, 2, 7, 0, 0, 0, b"") + b"\0" * 8
    sb = struct.pack("<II", ITEM_SB, 8 + len(body)) + body
    at = end if after is None else after
    out = data if plain else data[:at] + krec + sb + data[at:]
    open(dst, "wb").write(out)
    print(-1 if bad is None else bad)


def unknown(data, dst):
    off = struct.unpack_from("<I", data, 8)[0]
    out, krecs, size = [data[:off]], 0, 300 * 1024
    while off < len(data):
        typ, isize = struct.unpack_from("<II", data, off)
        out.append(data[off:off + isize])
        off += isize
        if typ == ITEM_KREC:
            krecs += 1
            if krecs % 500 == 0:
                out.append(struct.pack("<II", 99, size) + bytes(size - 8))
    open(dst, "wb").write(b"".join(out))
    print(-1)


def hold(data, dst, pairs):
    off = struct.unpack_from("<I", data, 8)[0]
    pre, end, unk = [data[:off]], None, 300 * 1024
    while off < len(data):
        typ, isize = struct.unpack_from("<II", data, off)
        if typ == ITEM_END:
            end = data[off:off + isize]
        elif typ == ITEM_KREC:
            break
        else:
            pre.append(data[off:off + isize])
        off += isize
    while end is None and off < len(data):
        typ, isize = struct.unpack_from("<II", data, off)
        if typ == ITEM_END:
            end = data[off:off + isize]
        off += isize
    lost = struct.pack("<IIQ", REC_LOST, 16 + 8 * LOST_SLOTS, 1) + \
        struct.pack("<%dQ" % LOST_SLOTS, 1, *([0] * (LOST_SLOTS - 1)))
    krec = struct.pack("<IIII", ITEM_KREC, 16 + len(lost), 0, 0) + lost
    with open(dst, "wb") as f:
        f.write(b"".join(pre))
        for _ in range(pairs):
            f.write(krec)
            f.write(struct.pack("<II", 99, unk))
            f.seek(unk - 8, 1)
        f.write(end)
    print(-1)


def spread(data, dst):
    """Every kernel record in an item of its own, an unknown item of 300
    KiB (a hole) after each, the other items where they were."""
    off = struct.unpack_from("<I", data, 8)[0]
    unk = 300 * 1024
    with open(dst, "wb") as f:
        f.write(data[:off])
        while off < len(data):
            typ, isize = struct.unpack_from("<II", data, off)
            if isize < 8 or off + isize > len(data):
                sys.exit("prfcorrupt: bad item at %d" % off)
            if typ != ITEM_KREC:
                f.write(data[off:off + isize])
                off += isize
                if typ == ITEM_END:
                    break
                continue
            cpu = struct.unpack_from("<I", data, off + 8)[0]
            r = off + 16
            while r < off + isize:
                rsize = struct.unpack_from("<II", data, r)[1]
                if rsize < 8 or r + rsize > off + isize:
                    sys.exit("prfcorrupt: bad record at %d" % r)
                f.write(struct.pack("<IIII", ITEM_KREC, 16 + rsize, cpu, 0))
                f.write(data[r:r + rsize])
                f.write(struct.pack("<II", 99, unk))
                f.seek(unk - 8, 1)
                r += rsize
            off += isize
        f.truncate()
    print(-1)


main()
