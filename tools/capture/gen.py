"""Deterministic scope inputs and output checksums (docs/reference/schema.md, "Deterministic inputs").

Inputs are never stored: the C side regenerates them from the generator objects written into
capture.json, so every function here must be bit-exact with the C implementation. Each function
works element-wise on either a Python int index (the reference, used by the tests without numpy)
or a numpy uint64 index array (the capture, where inputs hold up to ~10^8 elements); only
operators that behave identically on both are used, and constants are typed to the index.
"""

M64 = 0xFFFFFFFFFFFFFFFF
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

HASHED = ("uniform", "randint", "bool")
EXACT = ("constant", "iota", "as_strided_iota")


def _word(value, like):
    """`value` as the index's word type: numpy.uint64 for arrays (so arithmetic wraps and
    shifts are logical), a plain int otherwise (masked to 64 bits after each step)."""
    return like.dtype.type(value) if hasattr(like, "dtype") else value


def _signed(x):
    """Hashes are uint64; integer generators add signed bounds to them."""
    return x.astype("int64") if hasattr(x, "astype") else x


def splitmix64(x):
    """The schema's mixer; x is an int in [0, 2^64) or a uint64 array."""
    m = _word(M64, x)
    z = (x + _word(GOLDEN, x)) & m
    z = ((z ^ (z >> _word(30, x))) * _word(MIX1, x)) & m
    z = ((z ^ (z >> _word(27, x))) * _word(MIX2, x)) & m
    return z ^ (z >> _word(31, x))


def element_hash(seed, i):
    """h for logical element i of the input seeded with `seed`."""
    return splitmix64((_word(seed, i) << _word(40, i)) ^ i)


def uniform(seed, i):
    """A value in [0.5, 1.5) with 23 fraction bits: exact in f32 (and in f64, so numpy may
    compute it in f64 and cast)."""
    return 0.5 + (element_hash(seed, i) >> _word(41, i)) * 2.0 ** -23


def randint(seed, low, high, i):
    """low + (h >> 1) % (high - low): an integer in [low, high)."""
    h = element_hash(seed, i)
    return low + _signed((h >> _word(1, i)) % _word(high - low, i))


def boolean(seed, i):
    """The top bit of h."""
    return element_hash(seed, i) >> _word(63, i)


def as_strided_iota(spec, i):
    """start + step * (offset + sum_k i_k * stride_k), i_k the row-major digits of i over
    `size`: the index values a graph builds with iota + as_strided, reproduced exactly."""
    i = _signed(i)
    pos = spec["offset"]
    for size, stride in zip(reversed(spec["size"]), reversed(spec["stride"])):
        pos = pos + (i % size) * stride
        i = i // size
    return spec["iota"]["start"] + spec["iota"]["step"] * pos


def element(spec, i):
    """Element i of the input described by generator object `spec` (not topk_ids or
    topk_ids_skewed, which are per token)."""
    kind = spec["generator"]
    if kind == "uniform":
        return uniform(spec["seed"], i)
    if kind == "randint":
        return randint(spec["seed"], spec["low"], spec["high"], i)
    if kind == "bool":
        return boolean(spec["seed"], i)
    if kind == "constant":
        return spec["value"] + 0 * _signed(i)
    if kind == "iota":
        return spec["start"] + spec["step"] * _signed(i)
    if kind == "as_strided_iota":
        return as_strided_iota(spec, i)
    raise ValueError(f"generator {kind!r}: expected one of "
                     f"{HASHED + EXACT + ('topk_ids', 'topk_ids_skewed')}")


def topk_ids(seed, experts, k, tokens):
    """MoE routing ids: per token a partial Fisher-Yates shuffle of 0..experts-1, k distinct ids.
    Small (tokens x k swaps), so plain Python serves both the tests and the capture."""
    rows = []
    for t in range(tokens):
        perm = list(range(experts))
        for j in range(k):
            h = splitmix64((seed << 40) ^ (t * experts + j))
            r = j + h % (experts - j)
            perm[j], perm[r] = perm[r], perm[j]
        rows.append(perm[:k])
    return rows


SKEW_ONE = 1 << 20


def skewed_weights(seed, experts):
    """topk_ids_skewed's per-expert integer weights (docs/reference/schema.md): experts ranked by a seeded
    Fisher-Yates shuffle driven by splitmix64(splitmix64((seed << 40) ^ j)); rank r weighs
    2^20 // (3r + 2), except the last experts // 8 ranks, which weigh 0 and stay empty."""
    perm = list(range(experts))
    for j in range(experts - 1):
        g = splitmix64(splitmix64((seed << 40) ^ j))
        r = j + g % (experts - j)
        perm[j], perm[r] = perm[r], perm[j]
    weights = [0] * experts
    for rank, e in enumerate(perm):
        if rank < experts - experts // 8:
            weights[e] = SKEW_ONE // (3 * rank + 2)
    return weights


def topk_ids_skewed(seed, experts, k, tokens):
    """Skewed MoE routing ids: per token k distinct experts by weighted sampling without
    replacement, draw j of token t from h = splitmix64((seed << 40) ^ (t * experts + j)):
    x = h % (sum of the remaining weights), the first expert (by id) whose running weight sum
    exceeds x; its weight then drops to 0 for the rest of the token."""
    if not 1 <= k <= experts - experts // 8 or experts > 4096:
        raise ValueError("topk_ids_skewed needs 1 <= k <= experts - experts // 8, experts <= 4096")
    base = skewed_weights(seed, experts)
    rows = []
    for t in range(tokens):
        w = list(base)
        row = []
        for j in range(k):
            h = splitmix64((seed << 40) ^ (t * experts + j))
            x = h % sum(w)
            e = 0
            while x >= w[e]:
                x -= w[e]
                e += 1
            row.append(e)
            w[e] = 0
        rows.append(row)
    return rows


def checksum_terms(bits, i):
    """splitmix64(b_i + i * GOLDEN) for element bits b_i (zero-extended) at logical index i."""
    m = _word(M64, i)
    return splitmix64((bits + ((i * _word(GOLDEN, i)) & m)) & m)


def checksum_hex(total):
    """The order-independent sum, mod 2^64, as capture.json writes it."""
    return f"{int(total) & M64:016x}"


def checksum(bits):
    """Reference checksum over a sequence of element bit patterns (ints), in row-major order."""
    return checksum_hex(sum(checksum_terms(b, i) for i, b in enumerate(bits)))
