#!/usr/bin/env python3
"""Convert Whisper tiny.en from CTranslate2's model directory (model.bin, vocabulary.txt) into the single ggml
file whisper.cpp loads. Used by scripts/setup; needs only Python 3 and numpy.

    whisper-ct2-to-ggml.py MODEL_DIR OUTPUT.bin

CTranslate2 keeps the same weights under other names and fuses some projections (query+key+value of the
self-attention, key+value of the cross-attention); they are split back here. The mel filter bank, which
whisper.cpp reads from the file, is computed (Slaney-style mel scale, 80 bands, 400-point FFT at 16 kHz, as
Whisper was trained with), and the byte-level BPE vocabulary is written as raw bytes. The output is written to
OUTPUT.part and renamed when complete.
"""
import os
import re
import struct
import sys

import numpy as np

CT2_TYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}
GGML_MAGIC = 0x67676D6C


def read_ct2(path):
    """Return ({name: ndarray}, {alias: name}) from a CTranslate2 model.bin (binary version 5 or 6)."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values

    def text():
        nonlocal pos
        (n,) = take("H")
        value = data[pos:pos + n].rstrip(b"\0").decode()
        pos += n
        return value

    (version,) = take("I")
    if version < 5:
        sys.exit(f"{path}: CTranslate2 binary version {version} is too old (5 or later expected)")
    spec = text()
    if spec != "WhisperSpec":
        sys.exit(f"{path}: holds a {spec}, not a Whisper model")
    take("I")  # spec revision
    (count,) = take("I")
    variables = {}
    for _ in range(count):
        name = text()
        (rank,) = take("B")
        shape = take("I" * rank)
        (dtype,) = take("B")
        (size,) = take("I")
        if dtype not in CT2_TYPES:
            sys.exit(f"{path}: variable {name} has an unknown data type {dtype}")
        array = np.frombuffer(data, dtype=CT2_TYPES[dtype], count=size // np.dtype(CT2_TYPES[dtype]).itemsize,
                              offset=pos)
        variables[name] = array.reshape(shape) if rank else array
        pos += size
    (count,) = take("I")
    aliases = {}
    for _ in range(count):
        alias = text()
        aliases[alias] = text()
    return variables, aliases


def byte_table():
    """GPT-2's byte-level BPE writes each byte as a printable character: printable Latin-1 bytes as themselves,
    the others as the code points from 256 upwards, in byte order. Returns {character: byte}."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    table = {chr(b): b for b in printable}
    extra = 0
    for b in range(256):
        if b not in printable:
            table[chr(256 + extra)] = b
            extra += 1
    return table


def mel_filters(sample_rate=16000, n_fft=400, n_mels=80):
    """Triangular filters on the Slaney mel scale (linear below 1 kHz, logarithmic above), area-normalised."""
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    log_step = np.log(6.4) / 27.0

    def to_mel(hz):
        hz = np.asarray(hz, dtype=np.float64)
        return np.where(hz >= min_log_hz, min_log_mel + np.log(np.maximum(hz, 1e-10) / min_log_hz) / log_step, hz / f_sp)

    def to_hz(mel):
        mel = np.asarray(mel, dtype=np.float64)
        return np.where(mel >= min_log_mel, min_log_hz * np.exp(log_step * (mel - min_log_mel)), f_sp * mel)

    bins = np.linspace(0, sample_rate / 2, n_fft // 2 + 1)
    edges = to_hz(np.linspace(to_mel(0.0), to_mel(sample_rate / 2), n_mels + 2))
    widths = np.diff(edges)
    ramps = edges[:, None] - bins[None, :]
    rising = -ramps[:-2] / widths[:-1, None]
    falling = ramps[2:] / widths[1:, None]
    weights = np.maximum(0, np.minimum(rising, falling))
    weights *= (2.0 / (edges[2:n_mels + 2] - edges[:n_mels]))[:, None]
    return weights.astype(np.float32)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[3].strip())
    model_dir, output = sys.argv[1], sys.argv[2]
    v, aliases = read_ct2(os.path.join(model_dir, "model.bin"))
    for alias, target in aliases.items():
        v.setdefault(alias, v[target])
    with open(os.path.join(model_dir, "vocabulary.txt"), encoding="utf-8") as f:
        vocabulary = f.read().split("\n")
    if vocabulary and vocabulary[-1] == "":
        vocabulary.pop()

    embed = v["decoder/embeddings/weight"]
    n_vocab, n_state = embed.shape
    n_audio_ctx = v["encoder/position_encodings/encodings"].shape[0]
    n_text_ctx = v["decoder/position_encodings/encodings"].shape[0]
    n_mels = v["encoder/conv1/weight"].shape[1]
    n_audio_layer = len({k.split("/")[1] for k in v if re.match(r"encoder/layer_\d+/", k)})
    n_text_layer = len({k.split("/")[1] for k in v if re.match(r"decoder/layer_\d+/", k)})
    n_audio_head = int(v["encoder/num_heads"])
    n_text_head = int(v["decoder/num_heads"])
    if len(vocabulary) != n_vocab:
        sys.exit(f"vocabulary.txt has {len(vocabulary)} tokens, the model {n_vocab}")

    # whisper.cpp's English-only layout: the ordinary tokens come from the file, the special ones
    # (<|endoftext|> and after) it names itself.
    ordinary = vocabulary[:vocabulary.index("<|endoftext|>")]
    table = byte_table()

    tensors = []  # (name, array)

    def put(name, array):
        tensors.append((name, np.asarray(array)))

    def norm(src, dst):
        put(dst + ".weight", v[src + "/gamma"])
        put(dst + ".bias", v[src + "/beta"])

    def linear(src, dst, bias=True):
        put(dst + ".weight", v[src + "/weight"])
        if bias:
            put(dst + ".bias", v[src + "/bias"])

    put("encoder.positional_embedding", v["encoder/position_encodings/encodings"])
    put("encoder.conv1.weight", v["encoder/conv1/weight"])
    put("encoder.conv1.bias", v["encoder/conv1/bias"].reshape(-1, 1))
    put("encoder.conv2.weight", v["encoder/conv2/weight"])
    put("encoder.conv2.bias", v["encoder/conv2/bias"].reshape(-1, 1))
    for i in range(n_audio_layer):
        src, dst = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        weight = v[src + "/self_attention/linear_0/weight"]
        bias = v[src + "/self_attention/linear_0/bias"]
        q, k, w = np.split(weight, 3)
        qb, _, wb = np.split(bias, 3)  # the key has no bias in Whisper (CTranslate2 stores zeros)
        put(dst + ".attn.query.weight", q)
        put(dst + ".attn.query.bias", qb)
        put(dst + ".attn.key.weight", k)
        put(dst + ".attn.value.weight", w)
        put(dst + ".attn.value.bias", wb)
        linear(src + "/self_attention/linear_1", dst + ".attn.out")
        norm(src + "/self_attention/layer_norm", dst + ".attn_ln")
        linear(src + "/ffn/linear_0", dst + ".mlp.0")
        linear(src + "/ffn/linear_1", dst + ".mlp.2")
        norm(src + "/ffn/layer_norm", dst + ".mlp_ln")
    norm("encoder/layer_norm", "encoder.ln_post")

    put("decoder.positional_embedding", v["decoder/position_encodings/encodings"])
    put("decoder.token_embedding.weight", embed)
    for i in range(n_text_layer):
        src, dst = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        weight = v[src + "/self_attention/linear_0/weight"]
        bias = v[src + "/self_attention/linear_0/bias"]
        q, k, w = np.split(weight, 3)
        qb, _, wb = np.split(bias, 3)
        put(dst + ".attn.query.weight", q)
        put(dst + ".attn.query.bias", qb)
        put(dst + ".attn.key.weight", k)
        put(dst + ".attn.value.weight", w)
        put(dst + ".attn.value.bias", wb)
        linear(src + "/self_attention/linear_1", dst + ".attn.out")
        norm(src + "/self_attention/layer_norm", dst + ".attn_ln")
        linear(src + "/attention/linear_0", dst + ".cross_attn.query")
        kw, vw = np.split(v[src + "/attention/linear_1/weight"], 2)
        _, vb = np.split(v[src + "/attention/linear_1/bias"], 2)
        put(dst + ".cross_attn.key.weight", kw)
        put(dst + ".cross_attn.value.weight", vw)
        put(dst + ".cross_attn.value.bias", vb)
        linear(src + "/attention/linear_2", dst + ".cross_attn.out")
        norm(src + "/attention/layer_norm", dst + ".cross_attn_ln")
        linear(src + "/ffn/linear_0", dst + ".mlp.0")
        linear(src + "/ffn/linear_1", dst + ".mlp.2")
        norm(src + "/ffn/layer_norm", dst + ".mlp_ln")
    norm("decoder/layer_norm", "decoder.ln")

    filters = mel_filters(n_mels=n_mels)
    part = output + ".part"
    with open(part, "wb") as out:
        out.write(struct.pack("<12i", GGML_MAGIC, n_vocab, n_audio_ctx, n_state, n_audio_head, n_audio_layer,
                              n_text_ctx, n_state, n_text_head, n_text_layer, n_mels, 1))
        out.write(struct.pack("<2i", *filters.shape))
        out.write(filters.astype("<f4").tobytes())
        out.write(struct.pack("<i", len(ordinary)))
        for token in ordinary:
            raw = bytes(table[c] for c in token)
            out.write(struct.pack("<i", len(raw)))
            out.write(raw)
        for name, array in tensors:
            # Small tensors, biases and positions in 32-bit floats, the matrices in 16-bit (whisper.cpp's f16 layout).
            small = array.ndim < 2 or name.endswith("conv1.bias") or name.endswith("conv2.bias") \
                or name.endswith("positional_embedding")
            array = array.astype("<f4" if small else "<f2")
            encoded = name.encode()
            out.write(struct.pack("<3i", array.ndim, len(encoded), 0 if small else 1))
            out.write(struct.pack(f"<{array.ndim}i", *reversed(array.shape)))
            out.write(encoded)
            out.write(np.ascontiguousarray(array).tobytes())
        out.flush()
        os.fsync(out.fileno())
    os.replace(part, output)


if __name__ == "__main__":
    main()
