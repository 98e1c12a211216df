"""PT2 archive + export-schema constants and writers.

This module mirrors, field for field, what torch 2.9's ``torch.export.save``
writes.  Sources read (PyTorch v2.9.0, as found in the ROCm/pytorch
release-2.9 tree, commit 10b22ea5c6a60ffa85520eb2d293affc48cea8ee):

* torch/_export/serde/schema.py            SCHEMA_VERSION = (8, 14), dataclasses
* torch/_export/serde/serialize.py         _dataclass_to_dict, EnumEncoder,
                                           GraphModuleSerializer, serialize()
* torch/export/pt2_archive/_package.py     package_pt2, PT2ArchiveWriter,
                                           _package_state_dict, _package_constants
* torch/csrc/export/pt2_archive_constants.h archive paths
* caffe2/serialize/inline_container.cc     PyTorchStreamWriter (zip layout)

Everything here is plain Python dictionaries in dataclass field order, so
``json.dumps`` gives the same key order as ``_dataclass_to_dict``.
"""

import hashlib
import io
import json
import math
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

# ----------------------------------------------------------------------------
# Versions and archive paths (pt2_archive_constants.h)
# ----------------------------------------------------------------------------

SCHEMA_VERSION = (8, 14)          # torch 2.9.0 (torch 2.8.0 has (8, 8))
TREESPEC_VERSION = 1
ARCHIVE_FORMAT_PATH = "archive_format"
ARCHIVE_FORMAT_VALUE = "pt2"
ARCHIVE_VERSION_PATH = "archive_version"
ARCHIVE_VERSION_VALUE = "0"
MODELS_FILENAME_FORMAT = "models/{}.json"
WEIGHTS_DIR = "data/weights/"
WEIGHT_FILENAME_PREFIX = "weight_"
WEIGHTS_CONFIG_FILENAME_FORMAT = "data/weights/{}_weights_config.json"
CONSTANTS_DIR = "data/constants/"
TENSOR_CONSTANT_FILENAME_PREFIX = "tensor_"
CONSTANTS_CONFIG_FILENAME_FORMAT = "data/constants/{}_constants_config.json"
SAMPLE_INPUTS_FILENAME_FORMAT = "data/sample_inputs/{}.pt"
EXTRA_DIR = "extra/"
PROVENANCE_FILE = "spyre_export_provenance.json"   # -> extra/spyre_export_provenance.json
ZIP_FORMAT_MIN_VERSION = 6        # PT2ArchiveWriter.set_min_version(6) -> ".data/version" = "6\n"
DEFAULT_MODEL_NAME = "model"

# ----------------------------------------------------------------------------
# Enums (schema.py)
# ----------------------------------------------------------------------------

SCALAR_TYPE = {  # ScalarType(IntEnum)
    "UNKNOWN": 0, "BYTE": 1, "CHAR": 2, "SHORT": 3, "INT": 4, "LONG": 5,
    "HALF": 6, "FLOAT": 7, "DOUBLE": 8, "COMPLEXHALF": 9, "COMPLEXFLOAT": 10,
    "COMPLEXDOUBLE": 11, "BOOL": 12, "BFLOAT16": 13, "UINT16": 28,
    "FLOAT8E4M3FN": 29, "FLOAT8E5M2": 30, "FLOAT8E4M3FNUZ": 31,
    "FLOAT8E5M2FNUZ": 32,
}
# torch dtype name -> ScalarType (serialize.py _TORCH_TO_SERIALIZE_DTYPE)
TORCH_DTYPE_TO_SCALAR_TYPE = {
    "uint8": 1, "int8": 2, "uint16": 28, "int16": 3, "int32": 4, "int64": 5,
    "float16": 6, "float32": 7, "float64": 8, "complex32": 9, "complex64": 10,
    "complex128": 11, "bool": 12, "bfloat16": 13, "float8_e4m3fn": 29,
    "float8_e5m2": 30, "float8_e4m3fnuz": 31, "float8_e5m2fnuz": 32,
}
SCALAR_TYPE_ITEMSIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 2, 7: 4, 8: 8, 9: 4,
                        10: 8, 11: 16, 12: 1, 13: 2, 28: 2, 29: 1, 30: 1,
                        31: 1, 32: 1}
LAYOUT = {"Unknown": 0, "SparseCoo": 1, "SparseCsr": 2, "SparseCsc": 3,
          "SparseBsr": 4, "SparseBsc": 5, "_mkldnn": 6, "Strided": 7}
MEMORY_FORMAT = {"Unknown": 0, "ContiguousFormat": 1, "ChannelsLast": 2,
                 "ChannelsLast3d": 3, "PreserveFormat": 4}
ARGUMENT_KIND_POSITIONAL = 1
ARGUMENT_KIND_KEYWORD = 2

# Argument union tags (schema.py class Argument), in declaration order.
ARGUMENT_TAGS = (
    "as_none", "as_tensor", "as_tensors", "as_int", "as_ints", "as_float",
    "as_floats", "as_string", "as_strings", "as_sym_int", "as_sym_ints",
    "as_scalar_type", "as_memory_format", "as_layout", "as_device", "as_bool",
    "as_bools", "as_sym_bool", "as_sym_bools", "as_graph",
    "as_optional_tensors", "as_custom_obj", "as_operator", "as_sym_float",
    "as_sym_floats", "as_optional_tensor", "as_complex",
)
INPUT_SPEC_TAGS = ("user_input", "parameter", "buffer", "tensor_constant",
                   "custom_obj", "token", "constant_input")
OUTPUT_SPEC_TAGS = ("user_output", "loss_output", "buffer_mutation",
                    "gradient_to_parameter", "gradient_to_user_input",
                    "user_input_mutation", "token", "parameter_mutation")


# ----------------------------------------------------------------------------
# JSON helpers
# ----------------------------------------------------------------------------


def json_float(x: float):
    """_dataclass_to_dict's float handling (inf/nan become strings)."""
    if x == math.inf:
        return "Infinity"
    if x == -math.inf:
        return "-Infinity"
    if math.isnan(x):
        return "NaN"
    return x


def to_json_bytes(obj: Any) -> bytes:
    """serialize.py _to_json_bytes: default separators, allow_nan=False."""
    return json.dumps(obj, allow_nan=False).encode("utf-8")


def sym_int(v: int) -> Dict[str, Any]:
    return {"as_int": int(v)}


def device(type_: str, index: Optional[int]) -> Dict[str, Any]:
    return {"type": type_, "index": index}


def tensor_meta(dtype_code: int, sizes: Sequence[int], strides: Sequence[int],
                storage_offset: int, requires_grad: bool,
                dev: Tuple[str, Optional[int]] = ("cpu", None),
                layout: int = LAYOUT["Strided"]) -> Dict[str, Any]:
    """serialize_tensor_meta, field order of schema.TensorMeta."""
    return {
        "dtype": dtype_code,
        "sizes": [sym_int(s) for s in sizes],
        "requires_grad": bool(requires_grad),
        "device": device(*dev),
        "strides": [sym_int(s) for s in strides],
        "storage_offset": sym_int(storage_offset),
        "layout": layout,
    }


def payload_meta(path_name: str, is_param: bool, tmeta: Dict[str, Any],
                 use_pickle: bool = False) -> Dict[str, Any]:
    """schema.PayloadMeta (weights/constants config entry)."""
    return {"path_name": path_name, "is_param": is_param,
            "use_pickle": use_pickle, "tensor_meta": tmeta}


def storage_nbytes_needed(tmeta: Dict[str, Any]) -> int:
    """Bytes a strided tensor touches in its storage (0 for empty tensors)."""
    sizes = [s["as_int"] for s in tmeta["sizes"]]
    strides = [s["as_int"] for s in tmeta["strides"]]
    off = tmeta["storage_offset"]["as_int"]
    if any(s == 0 for s in sizes):
        return 0
    last = off + sum((s - 1) * st for s, st in zip(sizes, strides))
    return (last + 1) * SCALAR_TYPE_ITEMSIZE[tmeta["dtype"]]


# ----------------------------------------------------------------------------
# pytree TreeSpec serialization (torch.utils._pytree.treespec_dumps, protocol 1)
# ----------------------------------------------------------------------------

LEAF = {"type": None, "context": None, "children_spec": []}


def treespec_node(type_name: str, context: Any, children: List[Dict[str, Any]]):
    # context is json.dumps(treespec.context) for builtin containers
    return {"type": type_name, "context": json.dumps(context),
            "children_spec": children}


def treespec_dumps(spec: Dict[str, Any]) -> str:
    return json.dumps((TREESPEC_VERSION, spec))


def treespec_of(obj: Any, is_leaf) -> Dict[str, Any]:
    """TreeSpec (as JSON schema) of a nested tuple/list/dict structure."""
    if is_leaf(obj):
        return dict(LEAF)
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return treespec_node("builtins.tuple", None,
                             [treespec_of(o, is_leaf) for o in obj])
    if isinstance(obj, list):
        return treespec_node("builtins.list", None,
                             [treespec_of(o, is_leaf) for o in obj])
    if isinstance(obj, dict):
        keys = list(obj.keys())
        return treespec_node("builtins.dict", keys,
                             [treespec_of(obj[k], is_leaf) for k in keys])
    raise NotImplementedError(f"treespec for {type(obj)}")


# ----------------------------------------------------------------------------
# Archive writing (PyTorchStreamWriter layout)
# ----------------------------------------------------------------------------


class StreamedData:
    """Record data produced piece by piece, for archives too large to hold in
    memory (multi-GB weights): ``size`` bytes in all, ``chunks()`` returns an
    iterable of bytes-like pieces (bytes, bytearray, memoryview, numpy
    arrays) that add up to ``size``; it may be called more than once and must
    give the same bytes each time.  ``tag`` stands for the content in
    serialization_id (the bytes are not hashed).  Only write_zip64_records
    accepts it."""

    def __init__(self, size: int, chunks, tag: str = ""):
        self.size = int(size)
        self.chunks = chunks
        self.tag = tag

    def __len__(self) -> int:
        return self.size


def serialization_id(records: Sequence[Tuple[str, bytes]]) -> str:
    """A deterministic 40-digit id in the format PyTorchStreamWriter uses
    (20-digit name hash + 20-digit data hash).  torch computes it from
    std::hash/crc32 over an unordered_set; readers only log it."""
    h_names = hashlib.sha256()
    h_data = hashlib.sha256()
    for name, data in records:
        h_names.update(name.encode() + b"\0")
        if isinstance(data, StreamedData):
            data = f"streamed:{data.size}:{data.tag}".encode()
        h_data.update(hashlib.sha256(data).digest())
    a = int.from_bytes(h_names.digest()[:8], "little")
    b = int.from_bytes(h_data.digest()[:8], "little")
    return f"{a:020d}{b:020d}"


def finish_records(records: List[Tuple[str, bytes]]) -> List[Tuple[str, bytes]]:
    """Appends the records torch writes last, in torch's order:
    archive_format, archive_version (PT2ArchiveWriter.__exit__), then
    .data/version, byteorder, .data/serialization_id (writeEndOfFile)."""
    out = list(records)
    names = {n for n, _ in out}
    if ARCHIVE_FORMAT_PATH not in names:
        out.append((ARCHIVE_FORMAT_PATH, ARCHIVE_FORMAT_VALUE.encode()))
    if ARCHIVE_VERSION_PATH not in names:
        out.append((ARCHIVE_VERSION_PATH, ARCHIVE_VERSION_VALUE.encode()))
    out.append((".data/version", f"{ZIP_FORMAT_MIN_VERSION}\n".encode()))
    out.append(("byteorder", b"little"))
    out.append((".data/serialization_id", serialization_id(out).encode()))
    return out


def write_zip_records(path: str, records: Iterable[Tuple[str, bytes]]) -> None:
    """Writes records (already complete, see finish_records) under the root
    folder basename(path) without extension, exactly like
    torch._C.PyTorchFileWriter: stored (uncompressed), 64-byte aligned data
    (padding in a local-header extra field with id 'FB'), DOS time/date 0,
    data descriptors after each record.  Uses torch's own writer."""
    import torch

    w = torch._C.PyTorchFileWriter(path)
    w.set_min_version(ZIP_FORMAT_MIN_VERSION)
    for name, data in records:
        w.write_record(name, data, len(data))
    w.write_end_of_file()


def read_archive(path_or_bytes) -> Tuple[str, Dict[str, bytes], List[str]]:
    """(root prefix incl. '/', {relative name: bytes}, ordered names)."""
    import zipfile

    f = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes
    with zipfile.ZipFile(f) as z:
        names = z.namelist()
        if not names:
            raise ValueError("archive does not contain any files")
        root = names[0].split("/", 1)[0] + "/"
        out = {}
        order = []
        for n in names:
            if not n.startswith(root):
                raise ValueError(f"file in archive is not in a subdirectory {root}: {n}")
            out[n[len(root):]] = z.read(n)
            order.append(n[len(root):])
    return root, out, order


def write_zip64_records(path: str, records: Iterable[Tuple[str, Any]],
                        root: Optional[str] = None) -> None:
    """The PyTorchStreamWriter layout (root folder, stored entries, UTF-8
    names, DOS time/date 0, data 64-byte aligned by an "FB" padding extra
    field) with every size and offset in ZIP64 form, as an archive over
    4 GiB has them: local headers carry 0xFFFFFFFF sizes plus a zip64 extra
    field (0x0001: uncompressed, compressed size), central directory entries
    0xFFFFFFFF sizes and offset plus a zip64 extra field (sizes, offset),
    then the zip64 end-of-central-directory record and locator and an end
    record whose counts/size/offset are 0xFFFF/0xFFFFFFFF.  No data
    descriptors (bit 3 clear; CRC and sizes known up front).  Pure Python.

    Streams: a record's data is bytes or a StreamedData, written piece by
    piece (its CRC is patched into the local header afterwards), so memory
    stays bounded whatever the size of the archive."""
    import os
    import struct
    import zlib

    if root is None:
        root = os.path.splitext(os.path.basename(path))[0]
    central = bytearray()
    n = 0
    with open(path, "wb") as out:
        for name, data in records:
            fname = f"{root}/{name}".encode("utf-8")
            size = len(data)
            offset = out.tell()
            z64 = struct.pack("<HHQQ", 0x0001, 16, size, size)
            base = offset + 30 + len(fname) + len(z64)
            pad = (-(base + 4)) % 64  # "FB" extra header is 4 bytes
            fb = struct.pack("<HH", 0x4246, pad) + b"Z" * pad
            extra = z64 + fb

            def local_header(crc):
                return struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0x0800, 0, 0, 0,
                                   crc, 0xFFFFFFFF, 0xFFFFFFFF, len(fname), len(extra))

            if isinstance(data, StreamedData):
                out.write(local_header(0) + fname + extra)
                assert out.tell() % 64 == 0
                crc = 0
                written = 0
                for piece in data.chunks():
                    piece = memoryview(piece).cast("B")
                    crc = zlib.crc32(piece, crc)
                    written += len(piece)
                    out.write(piece)
                if written != size:
                    raise ValueError(f"record '{name}': {written} bytes streamed, "
                                     f"{size} announced")
                crc &= 0xFFFFFFFF
                end = out.tell()
                out.seek(offset)
                out.write(local_header(crc))
                out.seek(end)
            else:
                crc = zlib.crc32(data) & 0xFFFFFFFF
                out.write(local_header(crc) + fname + extra)
                assert out.tell() % 64 == 0
                out.write(data)
            cz64 = struct.pack("<HHQQQ", 0x0001, 24, size, size, offset)
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0x0800, 0, 0,
                                   0, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(fname), len(cz64),
                                   0, 0, 0, 0, 0xFFFFFFFF)
            central += fname + cz64
            n += 1
        cd_offset = out.tell()
        out.write(central)
        z64_eocd = out.tell()
        tail = bytearray()
        tail += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n,
                            len(central), cd_offset)
        tail += struct.pack("<IIQI", 0x07064B50, 0, z64_eocd, 1)
        tail += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                            0xFFFFFFFF, 0)
        out.write(bytes(tail))
