# numpy references for views.mlir (run by ../../reference_check.py).
rng = np.random.default_rng(11)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


CASES = [
    Case("transpose_add", [normal(6, 10)], lambda x: [x.T + 1]),
    Case("permute3", [normal(2, 3, 4)], lambda x: [x.transpose(2, 0, 1)]),
    Case("copy_transposed", [normal(5, 7)], lambda x: [x.T]),
    Case("copy_into_window", [normal(4, 3)],
         lambda x: [np.pad(x.T, ((1, 1), (2, 2)))]),
    Case("slice_symbolic", [normal(9, 5)],
         lambda x: [2 * x[1:2, :], 2 * x[:, 1:2]]),
    Case("slice_symbolic", [normal(2, 2)],
         lambda x: [2 * x[1:2, :], 2 * x[:, 1:2]], label="slice_symbolic 2x2"),
    Case("slice_dynamic_offset", [normal(24, 8), normal(5)],
         lambda x, at: [x[5:13] + 1]),
    Case("slice_dynamic_offset", [normal(24, 8), normal(16)],
         lambda x, at: [x[16:24] + 1], label="slice_dynamic_offset at 16"),
    Case("slice_dynamic_offset", [normal(24, 8), normal(0)],
         lambda x, at: [x[0:8] + 1], label="slice_dynamic_offset at 0"),
    Case("mm_extern_transposed", [normal(9, 5), normal(9, 7)],
         lambda a, b: [(a.T.astype(np.float64) @ b).astype(np.float32)],
         rtol=1e-4, atol=1e-4),
]
