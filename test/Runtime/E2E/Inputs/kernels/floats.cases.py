# numpy references for floats.mlir (run by ../../reference_check.py). The
# roundings are computed here from the formats' definitions, independently
# of GraphPart: every code's value is decoded, and a value rounds to the
# nearest code, ties to the even code.
rng = np.random.default_rng(5)

# (exponent bits, mantissa bits, bias, finite only)
E4M3FN = (4, 3, 7, True)
E5M2 = (5, 2, 15, False)


def decode(code, fmt):
    exponent_bits, mantissa_bits, bias, finite_only = fmt
    exponent = (code >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = code & ((1 << mantissa_bits) - 1)
    if finite_only and (code & 0x7F) == 0x7F:
        return np.nan
    if not finite_only and exponent == (1 << exponent_bits) - 1:
        return np.inf if mantissa == 0 else np.nan
    if exponent == 0:
        return mantissa * 2.0 ** (1 - bias - mantissa_bits)
    return (1 + mantissa / 2 ** mantissa_bits) * 2.0 ** (exponent - bias)


def round_f8(values, fmt):
    codes = np.arange(0x80)
    positive = np.array([decode(c, fmt) for c in codes])
    finite = np.isfinite(positive)
    codes, positive = codes[finite], positive[finite]
    largest, step = positive[-1], positive[-1] - positive[-2]
    out = []
    for value in np.asarray(values, np.float64):
        magnitude = abs(value)
        if np.isnan(value):
            out.append(np.nan)
            continue
        # Past the largest value by half a step or more: the value the
        # next code would have (NaN or infinity, in fact) is nearer, or
        # as near and the next code is the even one.
        halfway = largest + step / 2
        next_even = (codes[-1] + 1) % 2 == 0
        if magnitude > halfway or (magnitude == halfway and next_even):
            big = np.nan if fmt[3] else np.inf
            out.append(np.copysign(big, value))
            continue
        distance = np.abs(positive - magnitude)
        best = np.flatnonzero(distance == distance.min())
        pick = best[0] if len(best) == 1 else \
            [b for b in best if codes[b] % 2 == 0][0]
        out.append(np.copysign(positive[pick], value))
    return np.array(out, np.float32)


def round_bf16(values):
    bits = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    return rounded.astype(np.uint32).view(np.float32)


def round_f16(values):
    return np.asarray(values, np.float32).astype(np.float16).astype(np.float32)


def special_values():
    # Zeros, ties in each format, subnormals of each, the largest finite
    # E4M3FN value and values near it (finite in both).
    return np.array([0.0, -0.0, 1.0, -1.5, 1.0625, 1.1875, 3.25, 2.0 ** -9,
                     2.0 ** -10, 3 * 2.0 ** -10, 2.0 ** -6 * 0.9375, 448.0,
                     -448.0, 440.0, 2.0 ** -16, 2.0 ** -17, 3 * 2.0 ** -17,
                     2.0 ** -14 * 0.875, 100.0, 0.3, -0.7, 1e-3,
                     6.0e-5, 7.0, 9.5, 13.0, 26.0, 52.0, 104.0, 208.0,
                     240.0, 0.0625], np.float32)


ROUND_INPUT = np.concatenate(
    [special_values(),
     (rng.standard_normal(32) * 4).astype(np.float32)])


def arith_reference(a, b):
    a8, b8 = round_f8(a, E4M3FN), round_f8(b, E4M3FN)
    product = round_f8(a8 * b8, E4M3FN)
    total = round_f8(product + a8, E4M3FN)
    return [round_f8(total * 0.5, E4M3FN),
            round_bf16(np.exp(round_bf16(a).astype(np.float64))),
            round_f16(np.exp(round_f16(a).astype(np.float64)))]


def classify(values, fmt):
    rounded = round_f8(values, fmt)
    return np.where(np.isnan(rounded), 2.0,
                    np.where(np.isinf(rounded), 1.0, 0.0)).astype(np.float32)


CLASSIFY_INPUT = np.array([1.0, 448.0, 463.0, 464.0, 465.0, 480.0, 1e4,
                           -1e4, 57344.0, 61439.0, 61440.0, 1e6, -1e6,
                           np.inf, -np.inf, np.nan], np.float32)

CASES = [
    Case("round_trip", [ROUND_INPUT],
         lambda x: [round_bf16(x), round_f16(x), round_f8(x, E4M3FN),
                    round_f8(x, E5M2)], rtol=0, atol=0),
    Case("arith", [(rng.standard_normal(32) * 2).astype(np.float32),
                   (rng.standard_normal(32) * 2).astype(np.float32)],
         arith_reference, rtol=1e-2, atol=1e-6),
    Case("classify", [CLASSIFY_INPUT],
         lambda x: [classify(x, E4M3FN), classify(x, E5M2)], rtol=0, atol=0),
]
