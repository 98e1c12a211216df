#!/usr/bin/python3
"""Writes hostile .pt2 archives for test/Target/Import/hostile-inputs.test.

Each file attacks one resource or parser of the importer (the classes of
issue 16): sizes whose byte count wraps, text that makes a recursive walk
overflow the stack, sizes a zip directory claims but cannot hold, a weight
whose bytes do not match their CRC, a second end-of-central-directory record
hidden in the archive comment, a pickle that copies one big list again and
again, and a small weight in an entry of megabytes of compressed zeros.
Some are tens of megabytes when read, so they are generated when the test
runs (in a few hundred milliseconds, with the standard library only)
rather than committed.

    /usr/bin/python3 tools/export/make_hostile_inputs.py \
        --models-dir test/e2e/models --legacy test/Target/Import/Inputs/legacy_pickled_weights_2_8.pt2 \
        --out-dir DIR
"""

import argparse
import io
import json
import os
import struct
import zipfile
import zlib

MODEL = "models/model.json"
WEIGHTS_CONFIG = "data/weights/model_weights_config.json"


def read(path):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        root = names[0].split("/", 1)[0] + "/"
        return root, [(n[len(root):], z.read(n)) for n in names]


def write(path, root, records, compress=(), comment=b""):
    """Writes `records` under `root`; the names in `compress` deflated."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data in records:
            info = zipfile.ZipInfo(root + name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = (zipfile.ZIP_DEFLATED if name in compress
                                  else zipfile.ZIP_STORED)
            z.writestr(info, data)
        z.comment = comment


def edit_json(records, entry, fn):
    out = []
    for name, data in records:
        if name == entry:
            doc = json.loads(data)
            fn(doc)
            data = json.dumps(doc).encode()
        out.append((name, data))
    return out


def nested(depth, leaf):
    """`depth` levels of one-element lists around `leaf`, as JSON text
    (json.dumps itself would recurse that deep)."""
    return "[" * depth + json.dumps(leaf) + "]" * depth


def replace_json_value(records, entry, key_path, text):
    """Sets the value at key_path of an entry's JSON to raw JSON `text`."""
    marker = "@@HOSTILE@@"

    def fn(doc):
        node = doc
        for k in key_path[:-1]:
            node = node[k]
        node[key_path[-1]] = marker

    out = []
    for name, data in edit_json(records, entry, fn):
        if name == entry:
            data = data.replace(json.dumps(marker).encode(), text.encode())
        out.append((name, data))
    return out


def graph(doc):
    return doc["graph_module"]["graph"]


def sizes(*dims):
    return [{"as_int": d} for d in dims]


def patch_sizes(path, entry, claimed):
    """Sets the uncompressed size of `entry` to `claimed` in its local header
    and its central directory record (both agree, so the zip stays
    consistent)."""
    data = bytearray(open(path, "rb").read())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(entry)
    struct.pack_into("<I", data, info.header_offset + 22, claimed)
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        name_len = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46:at + 46 + name_len] == entry.encode():
            struct.pack_into("<I", data, at + 24, claimed)
            if struct.unpack_from("<H", data, at + 10)[0] == 0:  # stored
                struct.pack_into("<I", data, at + 20, claimed)
                struct.pack_into("<I", data, info.header_offset + 18, claimed)
        at = data.find(b"PK\x01\x02", at + 4)
    open(path, "wb").write(bytes(data))


def flip_data_byte(path, entry):
    """Flips one byte of a stored entry's data; its CRC stays."""
    data = bytearray(open(path, "rb").read())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(entry)
    name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
    data[info.header_offset + 30 + name_len + extra_len] ^= 0x40
    open(path, "wb").write(bytes(data))


def fake_directory_in_comment(src, dst, root, victim, donor):
    """Appends, inside the archive comment, a second central directory and
    end record in which `victim` points at `donor`'s local header. A reader
    that takes the last end record it finds maps one weight onto another's
    bytes; libzip (and Python's zipfile) read the real directory."""
    data = open(src, "rb").read()
    eocd = data.rfind(b"PK\x05\x06")
    count, cd_size, cd_offset = struct.unpack_from("<HII", data, eocd + 10)
    cd = bytearray(data[cd_offset:cd_offset + cd_size])
    offsets = {}
    at = 0
    while at < len(cd):
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", cd, at + 28)
        offsets[bytes(cd[at + 46:at + 46 + name_len]).decode()] = (at, struct.unpack_from("<I", cd, at + 42)[0])
        at += 46 + name_len + extra_len + comment_len
    victim_at, _ = offsets[root + victim]
    _, donor_local = offsets[root + donor]
    struct.pack_into("<I", cd, victim_at + 42, donor_local)
    fake_cd_offset = eocd + 22
    fake_eocd = (b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, count, count, len(cd),
                                            fake_cd_offset, 0))
    comment = bytes(cd) + fake_eocd
    real_eocd = bytearray(data[eocd:eocd + 22])
    struct.pack_into("<H", real_eocd, 20, len(comment))
    open(dst, "wb").write(data[:eocd] + bytes(real_eocd) + comment)


def pickle_copy_bomb(list_len, copies):
    """A torch.save data.pkl that builds a list of `list_len` references to
    one pair, then calls OrderedDict(list) `copies` times: each call copies
    the list, a few bytes of pickle for 2 * list_len elements."""
    p = bytearray(b"\x80\x02")                            # PROTO 2
    p += b"ccollections\nOrderedDict\nq\x00"             # GLOBAL, BINPUT 0
    p += b"X\x01\x00\x00\x00aK\x01\x86q\x01"              # ('a', 1), BINPUT 1
    p += b"](" + b"h\x01" * list_len + b"eq\x02"         # [pair] * n, BINPUT 2
    p += b"(h\x00h\x02\x85R0" * copies                   # OrderedDict(list); POP
    p += b"0}."                                          # POP MARK, {} STOP
    return bytes(p)


def torch_save_zip(pkl):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in (("archive/data.pkl", pkl), ("archive/byteorder", b"little"),
                           ("archive/version", b"3\n")):
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return buf.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--legacy", required=True,
                    help="a torch 2.8 archive with pickled weights")
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    out = lambda n: os.path.join(a.out_dir, n)  # noqa: E731
    good = os.path.join(a.models_dir, "linear_relu_fp32", "model.pt2")
    root, records = read(good)

    # A weight of 2^62 x 4 f32 elements at stride 0: its view spans one
    # element, and 2^64 bytes wrapped to 0 sized the buffer it was copied into.
    def huge_weight(doc):
        meta = graph(doc)["tensor_values"]["p_linear_weight"]
        meta["sizes"], meta["strides"] = sizes(2**62, 4), sizes(0, 0)
    recs = edit_json(records, MODEL, huge_weight)

    def huge_weight_config(doc):
        meta = doc["config"]["linear.weight"]["tensor_meta"]
        meta["sizes"], meta["strides"] = sizes(2**62, 4), sizes(0, 0)
    write(out("huge_zero_stride_weight.pt2"), root,
          edit_json(recs, WEIGHTS_CONFIG, huge_weight_config))

    # An input of 2^32 x 2^32 x 4 elements (2^66 f32 bytes).
    write(out("huge_input.pt2"), root, edit_json(records, MODEL, lambda d: graph(d)[
        "tensor_values"]["x"].update(sizes=sizes(2**32, 2**32, 4))))

    # A stack trace whose file name is 50,000 characters long.
    long_name = "m" * 50000 + ".py"
    write(out("long_stack_trace.pt2"), root, edit_json(records, MODEL, lambda d: graph(d)[
        "nodes"][0]["metadata"].update(
            stack_trace='File "%s", line 7, in forward\n    y = f(x)' % long_name)))

    # JSON nested 100,000 levels: an argument, a tensor's metadata, and the
    # weights config.
    write(out("deep_argument.pt2"), root, replace_json_value(
        records, MODEL, ["graph_module", "graph", "nodes", 0, "inputs", 0, "arg"],
        nested(100000, 0)))
    write(out("deep_tensor_values.pt2"), root, replace_json_value(
        records, MODEL, ["graph_module", "graph", "tensor_values", "x", "device"],
        nested(100000, "cpu")))
    write(out("deep_weights_config.pt2"), root, replace_json_value(
        records, WEIGHTS_CONFIG, ["config", "linear.weight", "path_name"],
        nested(100000, "weight_0")))

    # 100,001 nodes (empty ones: the count is checked first): more than the
    # importer builds IR for.
    def many_nodes(doc):
        graph(doc)["nodes"] = [{}] * 100001
    write(out("too_many_nodes.pt2"), root, edit_json(records, MODEL, many_nodes))

    # The program's JSON claims 3.5 GB: deflated (more than DEFLATE's
    # 1032:1 can produce from its bytes) and stored (more than the file).
    write(out("claimed_huge_deflated_entry.pt2"), root, records, compress={MODEL})
    patch_sizes(out("claimed_huge_deflated_entry.pt2"), root + MODEL, 3500000000)
    write(out("claimed_huge_stored_entry.pt2"), root, records)
    patch_sizes(out("claimed_huge_stored_entry.pt2"), root + MODEL, 3500000000)

    # Weights whose bytes the emitter streams from the archive (mlp_fp16:
    # fc1.weight and fc2.weight, 512 KiB each, above the 16 KiB kept inline)
    # and one the importer inlines (linear_relu_fp32's 48-byte weight).
    mroot, mlp = read(os.path.join(a.models_dir, "mlp_fp16", "model.pt2"))
    w0, w2 = "data/weights/weight_0", "data/weights/weight_2"

    # A weight's entry followed by 8 MiB of zeros, deflated to a few KB: only
    # what the weight needs may be decompressed (to disk for the streamed
    # weight, to memory for the inlined one).
    def zeros_after(recs, entry):
        return [(n, d + bytes(8 << 20) if n == entry else d) for n, d in recs]
    write(out("deflated_zeros_streamed_weight.pt2"), mroot, zeros_after(mlp, w0),
          compress={w0})
    write(out("deflated_zeros_inline_weight.pt2"), root, zeros_after(records, w0),
          compress={w0})
    # 2 MiB of zeros after a 512 KiB weight: within what a compressed entry
    # may hold unused, so it compiles, decompressing 512 KiB to disk.
    write(out("deflated_padded_streamed_weight.pt2"), mroot,
          [(n, d + bytes(2 << 20) if n == w0 else d) for n, d in mlp], compress={w0})

    # One flipped bit in a weight; the CRC is the original's.
    write(out("bad_crc_streamed_weight.pt2"), mroot, mlp)
    flip_data_byte(out("bad_crc_streamed_weight.pt2"), mroot + w0)
    write(out("bad_crc_inline_weight.pt2"), root, records)
    flip_data_byte(out("bad_crc_inline_weight.pt2"), root + w0)

    # A second directory in the archive comment maps fc1.weight onto
    # fc2.weight (same size).
    write(out("plain.pt2"), mroot, mlp)
    fake_directory_in_comment(out("plain.pt2"), out("fake_directory_in_comment.pt2"),
                              mroot, w0, w2)
    os.remove(out("plain.pt2"))

    # torch 2.6-2.8 pickled weights whose pickle copies a 500k-element list
    # 100k times (2 MB of pickle asking for 800 GB of references).
    lroot, lrecs = read(a.legacy)
    pkl = pickle_copy_bomb(500000, 100000)
    write(out("pickle_copy_bomb.pt2"), lroot,
          [(n, torch_save_zip(pkl) if n == "data/weights/model.pt" else d)
           for n, d in lrecs])


if __name__ == "__main__":
    main()
