"""Tests of the spyre Python package against the end-to-end fixtures
(test/e2e/models: a .pt2, its inputs and PyTorch's outputs). Run by ctest
(python-package) with PYTHONPATH=build/python and SPYRE_SOURCE_DIR."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

import spyre

SOURCE = Path(os.environ.get("SPYRE_SOURCE_DIR", ".")).resolve()
MODELS = SOURCE / "test/e2e/models"
INPUTS = SOURCE / "test/Tools/Inputs"


def fixture(name):
    """(fixture.json, inputs, expected outputs) of test/e2e/models/NAME."""
    d = MODELS / name
    meta = json.loads((d / "fixture.json").read_text())
    ins = [np.load(d / i["file"]) for i in meta["inputs"]]
    outs = [np.load(d / o["file"]) for o in meta["outputs"]]
    return meta, ins, outs


@pytest.fixture(scope="session")
def compiled(tmp_path_factory):
    """NAME -> the path of its .spy, compiled once per test session."""
    out_dir = tmp_path_factory.mktemp("spy")
    cache = {}

    def get(name, **options):
        key = (name, tuple(sorted(options.items())))
        if key not in cache:
            cache[key] = spyre.compile(
                MODELS / name / "model.pt2",
                out_dir / f"{name}-{len(cache)}.spy",
                **options,
            )
        return cache[key]

    return get


TOLERANCES = json.loads((SOURCE / "test/e2e/tolerances.json").read_text())


def assert_matches(meta, got, expected):
    """Each output as the end-to-end tests accept it, at the loosest kind of
    its dtype (test/e2e/tolerances.json): these tests are about the
    interface; a misbound or misordered array is off by far more."""
    assert len(got) >= len(expected)
    for g, e, spec in zip(got, expected, meta["outputs"]):
        assert g.shape == e.shape and g.dtype == e.dtype
        rtol, atol = TOLERANCES.get(spec["dtype"], {}).get("block", (0, 0))
        np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64),
                                   rtol=rtol, atol=atol)


def test_compile_load_run_positional(compiled):
    meta, ins, outs = fixture("add_fp16")
    m = spyre.load(compiled("add_fp16"))
    assert [s.shape for s in m.inputs] == [tuple(i["shape"]) for i in meta["inputs"]]
    assert [s.dtype for s in m.inputs] == ["f16", "f16"]
    assert all(s.numpy_dtype == np.float16 for s in m.inputs)
    assert m.outputs[0].aliases_input == -1
    assert m.outputs[0].updates_buffer is None
    assert_matches(meta, m.run(*ins), outs)


def test_run_by_name_and_repeat(compiled):
    meta, ins, outs = fixture("block_bert_encoder")
    m = spyre.load(compiled("block_bert_encoder"))
    names = [s.name for s in m.inputs]
    by_name = dict(zip(names, ins))
    first = m.run(**by_name)
    assert_matches(meta, first, outs)
    # Mixed: positional first, the rest by name; the same answer again.
    second = m.run(ins[0], **{names[1]: ins[1]})
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert "spyre.Model" in repr(m) and names[0] in repr(m)


def test_non_contiguous_input_is_read_in_order(compiled):
    meta, ins, outs = fixture("add_fp16")
    m = spyre.load(compiled("add_fp16"))
    transposed = np.asfortranarray(ins[0])
    assert not transposed.flags.c_contiguous
    assert_matches(meta, m.run(transposed, ins[1]), outs)


def test_bf16_travels_as_float32(compiled):
    meta, ins, outs = fixture("fuzz_layer_norm_default_64_s1")
    m = spyre.load(compiled("fuzz_layer_norm_default_64_s1"))
    assert [s.dtype for s in m.inputs] == ["bf16", "bf16"]
    assert m.inputs[0].numpy_dtype == np.float32
    got = m.run(*ins)
    assert got[0].dtype == np.float32
    assert_matches(meta, got, outs)


def test_mutated_input_written_back(compiled):
    meta, ins, outs = fixture("op_mutation_inplace_fp32")
    m = spyre.load(compiled("op_mutation_inplace_fp32"))
    aliasing = [s for s in m.outputs if s.aliases_input == 0]
    assert len(aliasing) == 1, m.outputs
    x = ins[0].copy()
    m.run(x)
    # x.mul_(2.0) in the module: the caller's array changed as in PyTorch.
    np.testing.assert_allclose(x, ins[0] * 2, rtol=1e-6)


def test_stats_and_profile(compiled):
    _, ins, _ = fixture("add_fp16")
    m = spyre.load(compiled("add_fp16"))
    m.run(*ins)
    stats = m.stats
    assert stats["total_ns"] > 0 and stats["roofline_ns"] > 0
    assert stats["launches"] == 1 and len(stats["kernels"]) >= 1
    m.run(*ins)
    assert m.stats["launches"] == 2
    table = m.profile()
    assert "roofline" in table and stats["kernels"][0]["name"] in table
    m.reset_stats()
    assert m.stats["launches"] == 0


def test_timing_only_without_inputs(compiled, tmp_path):
    m = spyre.load(compiled("block_bert_encoder"), timing_only=True, trace=True)
    assert m.run() is None
    assert m.stats["total_ns"] > 0
    trace = tmp_path / "trace.json"
    m.write_trace(trace)
    assert json.loads(trace.read_text())


def test_compile_options_reach_the_compiler(compiled):
    meta, ins, outs = fixture("block_bert_encoder")
    fused = spyre.load(compiled("block_bert_encoder"))
    baseline = spyre.load(compiled("block_bert_encoder", fusion=False, on_chip=False))
    assert_matches(meta, baseline.run(*ins), outs)
    fused.run(*ins)
    assert len(baseline.stats["kernels"]) > len(fused.stats["kernels"])


def test_wrong_dtype_names_the_input(compiled):
    _, ins, _ = fixture("add_fp16")
    m = spyre.load(compiled("add_fp16"))
    with pytest.raises(spyre.Error, match=r"input 1 \('.*'\): expected float16 \[32, 128\].*got float32"):
        m.run(ins[0], ins[1].astype(np.float32))


def test_wrong_shape_names_the_input(compiled):
    _, ins, _ = fixture("add_fp16")
    m = spyre.load(compiled("add_fp16"))
    with pytest.raises(spyre.Error, match=r"input 0 .*expected float16 \[32, 128\].*got float16 \[128, 32\]"):
        m.run(ins[0].T.copy(), ins[1])


def test_argument_errors(compiled):
    _, ins, _ = fixture("add_fp16")
    m = spyre.load(compiled("add_fp16"))
    names = [s.name for s in m.inputs]
    with pytest.raises(spyre.Error, match="no value for input 1"):
        m.run(ins[0])
    with pytest.raises(spyre.Error, match="has no input 'nope'"):
        m.run(*ins, nope=ins[0])
    with pytest.raises(spyre.Error, match="given twice"):
        m.run(ins[0], **{names[0]: ins[0], names[1]: ins[1]})
    with pytest.raises(spyre.Error, match="takes 2 input"):
        m.run(*ins, ins[0])


def test_load_errors_carry_the_runtime_message(tmp_path):
    with pytest.raises(spyre.Error, match="missing.spy"):
        spyre.load(tmp_path / "missing.spy")
    bad = tmp_path / "bad.spy"
    bad.write_bytes(b"\0" * 100)
    with pytest.raises(spyre.Error, match="magic"):
        spyre.load(bad)


def test_weights_file_beside_the_model_or_named(tmp_path):
    meta, ins, outs = fixture("model_llama_tiny")
    spy = Path(spyre.compile(MODELS / "model_llama_tiny" / "model.pt2",
                             tmp_path / "m.spy", weights="file"))
    assert (tmp_path / "m.spyw").exists()
    assert_matches(meta, spyre.load(spy).run(*ins), outs)
    moved = tmp_path / "moved.spyw"
    (tmp_path / "m.spyw").rename(moved)
    with pytest.raises(spyre.Error, match="m.spyw.*the weights file the .spy names"):
        spyre.load(spy)
    assert_matches(meta, spyre.load(spy, weights=moved).run(*ins), outs)


def test_arch_mismatch_is_refused(compiled):
    with pytest.raises(spyre.Error, match="machine description|arch"):
        spyre.load(compiled("add_fp16"), arch=INPUTS / "small-lx-arch.json")


def test_compile_error_carries_diagnostics(tmp_path):
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(b"not a zip archive")
    with pytest.raises(spyre.CompileError, match="bad.pt2") as info:
        spyre.compile(bad, tmp_path / "out.spy")
    assert isinstance(info.value, spyre.Error)
    assert not (tmp_path / "out.spy").exists()


def test_compile_default_output_is_beside_the_model(tmp_path):
    src = MODELS / "add_fp16" / "model.pt2"
    model = tmp_path / "add.pt2"
    model.write_bytes(src.read_bytes())
    assert spyre.compile(model) == str(tmp_path / "add.spy")
    assert spyre.load(tmp_path / "add.spy").inputs[0].dtype == "f16"


def test_device_tensors_are_used_in_place(compiled):
    meta, ins, outs = fixture("add_fp16")
    m = spyre.load(compiled("add_fp16"))
    x = m.new_input("x").upload(ins[0])
    y = m.new_input(1).upload(ins[1])
    out = m.new_output(0)
    assert out.spec.shape == (32, 128) and out.spec.numpy_dtype == np.float16
    got = m.run(x, y, outputs=[out])
    assert got[0] is out
    assert_matches(meta, [out.download()], outs)
    # Mixed: one input on the device, one from the host; output to the host.
    assert_matches(meta, m.run(x, ins[1]), outs)
    # The device keeps f16 as DLFloat16 (9 fraction bits): a round trip is
    # within 2^-10 relative.
    np.testing.assert_allclose(x.download(), ins[0], rtol=2 ** -10)


def test_device_tensor_errors(compiled):
    _, ins, _ = fixture("add_fp16")
    dev = spyre.Device()
    m = spyre.load(compiled("add_fp16"), device=dev)
    bert = spyre.load(compiled("block_bert_encoder"), device=dev)
    mask = bert.new_input(1)
    with pytest.raises(spyre.Error, match=r"input 0 \('x'\) is f16 \[32, 128\].*device tensor .* is i64 \[1, 16\]"):
        m.run(mask, ins[1])
    elsewhere = spyre.load(compiled("add_fp16")).new_input(0)
    with pytest.raises(spyre.Error, match="on another device"):
        m.run(elsewhere, ins[1])
    with pytest.raises(spyre.Error, match=r"device tensor 'x': expected float16 \[32, 128\]"):
        m.new_input(0).upload(ins[0].astype(np.float32))
    with pytest.raises(spyre.Error, match="has no input 'z'"):
        m.new_input("z")
    with pytest.raises(spyre.Error, match="has 1 output"):
        m.run(*ins, outputs=[None, None])
    with pytest.raises(spyre.Error, match="outputs= takes device tensors or None"):
        m.run(*ins, outputs=[ins[0]])
    with pytest.raises(spyre.Error, match="with device= they are the device's"):
        spyre.load(compiled("add_fp16"), device=dev, timing_only=True)


def test_two_models_share_a_buffer(compiled):
    _, ins, _ = fixture("op_mutation_inplace_fp32")
    path = compiled("op_mutation_inplace_fp32")
    alone = spyre.load(path)
    assert [b.name for b in alone.buffers] == ["count"]
    first = alone.run(ins[0].copy())
    second = alone.run(ins[0].copy())
    # The buffer carries state: the second run differs from the first.
    assert any(not np.array_equal(a, b) for a, b in zip(first, second))

    dev = spyre.Device()
    a, b = spyre.load(path, device=dev), spyre.load(path, device=dev)
    b.bind_weight("count", a.weight("count"))
    for got, want in ((a.run(ins[0].copy()), first), (b.run(ins[0].copy()), second)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    with pytest.raises(spyre.Error, match="no weight or buffer 'nope'"):
        b.weight("nope")
    other = next(i for i, o in enumerate(b.outputs) if o.shape != b.buffers[0].shape)
    with pytest.raises(spyre.Error, match="weight 'count' is"):
        b.bind_weight("count", b.new_output(other))


def test_threads_share_a_device(compiled):
    import threading
    meta, ins, outs = fixture("add_fp16")
    dev = spyre.Device()
    models = [spyre.load(compiled("add_fp16"), device=dev) for _ in range(2)]
    errors = []

    def work(m, k):
        try:
            for r in range(6):
                scale = np.float16(k + r)
                got = m.run(ins[0] * scale, ins[1])
                assert_matches(meta, got, [ins[0] * scale + ins[1]])
                t = m.new_input(0).upload(ins[0])  # freed at once: under the lock
                del t
        except Exception as e:  # reported below: pytest sees no thread's raise
            errors.append(e)

    threads = [threading.Thread(target=work, args=(models[i % 2], i)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert dev.stats["launches"] == 24


def test_check_passes_and_names_a_broken_kernel(compiled, tmp_path):
    """run(check=True): every kernel against the host reference of its
    compute ops; a deliberately broken lowering (the RMSNorm's
    x * rsqrt(...) made a subtract in the program-level IR) raises
    CheckError naming the kernel and its source lines."""
    import re
    import subprocess
    from spyre import _build_paths

    meta, ins, outs = fixture("block_llama_decoder")
    m = spyre.load(compiled("block_llama_decoder"))
    assert_matches(meta, m.run(*ins, check=True), outs)
    assert m.check_report == "check: 13 of 13 kernels match their reference\n"

    bin_dir = Path(_build_paths.BIN_DIR)
    good = tmp_path / "good.mlir"
    # --on-chip=false: every kernel result in device memory, so the broken
    # kernel is judged on its own (docs/debugging.md).
    subprocess.run([bin_dir / "spyre-compile", MODELS / "block_llama_decoder" / "model.pt2",
                    "-o", good, "--emit-mlir", "--mlir-print-debuginfo", "--on-chip=false"],
                   check=True)
    text = good.read_text()
    start = re.search(r"spyre.program @k\d+_cast_to_9 ", text).start()
    end = text.index("\n  } loc", start)
    body = text[start:end].replace('sfp_binary "mul" {bcast_col1',
                                   'sfp_binary "sub" {bcast_col1', 1)
    assert body != text[start:end]
    bad = tmp_path / "bad.mlir"
    bad.write_text(text[:start] + body + text[end:])
    subprocess.run([bin_dir / "spyre-translate", "--spyre-to-spy", bad,
                    "-o", tmp_path / "bad.spy"], check=True)
    broken = spyre.load(tmp_path / "bad.spy")
    with pytest.raises(spyre.CheckError) as e:
        broken.run(*ins, check=True)
    assert isinstance(e.value, spyre.Error)
    assert re.search(r"kernel \d+ 'k\d+_cast_to_9' is the first of 1 diverging",
                     str(e.value))
    assert "layer.post_attention_layernorm (rsqrt_" in str(e.value)
    assert broken.check_report == str(e.value)
