# numpy references for imported_fill_contractions.mlir (run by
# ../../reference_check.py).
rng = np.random.default_rng(29)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def dot(a, b, init=0.0):
    return np.array(init + a.astype(np.float64) @ b, np.float32)


def mm(a, b, init=0.0):
    return (init + a.astype(np.float64) @ b).astype(np.float32)


CASES = [
    Case("dot_static", [normal(64), normal(64)], lambda a, b: [dot(a, b)],
         rtol=1e-4, atol=1e-4),
    Case("dot_dynamic", [normal(1000), normal(1000)],
         lambda a, b: [dot(a, b)], rtol=1e-4, atol=1e-4),
    Case("dot_dynamic", [normal(1), normal(1)], lambda a, b: [dot(a, b)],
         label="dot_dynamic 1 element"),
    Case("dot_onto_fill", [normal(37), normal(37)],
         lambda a, b: [dot(a, b, 2.5)], rtol=1e-4, atol=1e-4),
    Case("matmul_static", [normal(16, 32), normal(32, 24)],
         lambda a, b: [mm(a, b)], rtol=1e-4, atol=1e-4),
    Case("matmul_dynamic", [normal(33, 70), normal(70, 45)],
         lambda a, b: [mm(a, b)], rtol=1e-4, atol=1e-4),
    Case("matmul_dynamic", [normal(1, 5), normal(5, 1)],
         lambda a, b: [mm(a, b)], rtol=1e-4, atol=1e-4,
         label="matmul_dynamic 1x5 @ 5x1"),
    Case("matmul_onto_fill", [normal(7, 32), normal(32, 24)],
         lambda a, b: [mm(a, b, -1.0)], rtol=1e-4, atol=1e-4),
    Case("matmul_onto_fill", [normal(1, 32), normal(32, 24)],
         lambda a, b: [mm(a, b, -1.0)], rtol=1e-4, atol=1e-4,
         label="matmul_onto_fill 1 row"),
    Case("dot_and_matmul",
         [normal(300), normal(300), normal(9, 17), normal(17, 4)],
         lambda x, y, a, b: [dot(x, y), mm(a, b)], rtol=1e-4, atol=1e-4),
]
