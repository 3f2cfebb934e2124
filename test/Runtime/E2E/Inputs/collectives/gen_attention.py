"""Writes attention.mlir (an attention block, unsharded) or tp_attention.mlir
(its tensor-parallel form for 2 ranks) to stdout as gp dialect MLIR.

    gen_attention.py block > attention.mlir
    gen_attention.py tp > tp_attention.mlir
"""
import sys

S, W, H, D = 8, 64, 4, 16  # sequence, width, heads, head width


def block(name, heads, tp):
    """heads: heads this program computes; tp: slice weights at gp.rank."""
    hw = heads * D
    lines = []
    add = lines.append
    add('func.func @%s(%%x: memref<%dx%dxf32, #dev>, %%wqkv: memref<%dx%dxf32, #dev>, %%wo: memref<%dx%dxf32, #dev>) -> memref<%dx%dxf32, #dev> {' % (name, S, W, W, 3 * W, W, W, S, W))
    if tp:
        add('  %r = gp.rank : index')
        add('  %%cw = arith.constant %d : index' % hw)
        add('  %at = arith.muli %r, %cw : index')
        for part, base in (("q", 0), ("k", W), ("v", 2 * W)):
            add('  %%c%s = arith.constant %d : index' % (part, base))
            add('  %%at%s = arith.addi %%at, %%c%s : index' % (part, part))
            add('  %%w%s = gp.buffer.slice %%wqkv [0, %%at%s] [%d, %d] [1, 1] : memref<%dx%dxf32, #dev> to memref<%dx%dxf32, strided<[%d, 1], offset: ?>, #dev>' % (part, part, W, hw, W, 3 * W, W, hw, 3 * W))
        add('  %%wor = gp.buffer.slice %%wo [%%at, 0] [%d, %d] [1, 1] : memref<%dx%dxf32, #dev> to memref<%dx%dxf32, strided<[%d, 1], offset: ?>, #dev>' % (hw, W, W, W, hw, W, W))
        wtype = 'memref<%dx%dxf32, strided<[%d, 1], offset: ?>, #dev>' % (W, hw, 3 * W)
        wotype = 'memref<%dx%dxf32, strided<[%d, 1], offset: ?>, #dev>' % (hw, W, W)
        wo = '%wor'
    else:
        for part, base in (("q", 0), ("k", W), ("v", 2 * W)):
            add('  %%w%s = gp.buffer.slice %%wqkv [0, %d] [%d, %d] [1, 1] : memref<%dx%dxf32, #dev> to memref<%dx%dxf32, strided<[%d, 1], offset: %d>, #dev>' % (part, base, W, W, W, 3 * W, W, W, 3 * W, base))
        wtypes = {p: 'memref<%dx%dxf32, strided<[%d, 1], offset: %d>, #dev>' % (W, W, 3 * W, b) for p, b in (("q", 0), ("k", W), ("v", 2 * W))}
        wotype = 'memref<%dx%dxf32, #dev>' % (W, W)
        wo = '%wo'
    act = 'memref<%dx%dxf32, #dev>' % (S, hw)
    for part in "qkv":
        t = wtype if tp else wtypes[part]
        add('  %%%s = gp.buffer.alloc() : %s' % (part, act))
        add('  gp.kernel "proj_%s" ins(%%x, %%w%s : memref<%dx%dxf32, #dev>, %s) outs(%%%s : %s) {' % (part, part, S, W, t, part, act))
        add('  ^bb0(%%a: memref<%dx%dxf32, #dev>, %%b: %s, %%o: %s):' % (S, W, t, act))
        add('    %zero = arith.constant 0.0 : f32')
        add('    linalg.fill ins(%%zero : f32) outs(%%o : %s)' % act)
        add('    linalg.matmul ins(%%a, %%b : memref<%dx%dxf32, #dev>, %s) outs(%%o : %s)' % (S, W, t, act))
        add('  }')
    sc = 'memref<%dx%dx%dxf32, #dev>' % (heads, S, S)
    act3 = 'memref<%dx%dx%dxf32, #dev>' % (S, heads, D)
    for part in "qkv":
        add('  %%%s3 = gp.buffer.reshape %%%s() : %s to %s' % (part, part, act, act3))
    rowt = 'memref<%dx%dxf32, #dev>' % (heads, S)
    add('  %%s = gp.buffer.alloc() : %s' % sc)
    add('  gp.kernel "scores" ins(%%q3, %%k3 : %s, %s) outs(%%s : %s) {' % (act3, act3, sc))
    add('  ^bb0(%%a: %s, %%b: %s, %%o: %s):' % (act3, act3, sc))
    add('    %zero = arith.constant 0.0 : f32')
    add('    linalg.fill ins(%%zero : f32) outs(%%o : %s)' % sc)
    add('    linalg.generic {indexing_maps = [affine_map<(h, i, j, c) -> (i, h, c)>, affine_map<(h, i, j, c) -> (j, h, c)>, affine_map<(h, i, j, c) -> (h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%%a, %%b : %s, %s) outs(%%o : %s) {' % (act3, act3, sc))
    add('    ^bb0(%qa: f32, %kb: f32, %acc: f32):')
    add('      %m = arith.mulf %qa, %kb : f32')
    add('      %t = arith.addf %acc, %m : f32')
    add('      linalg.yield %t : f32')
    add('    }')
    add('  }')
    # softmax over j of scale * s
    add('  %%mx = gp.buffer.alloc() : %s' % rowt)
    add('  %%sm = gp.buffer.alloc() : %s' % rowt)
    add('  %%p = gp.buffer.alloc() : %s' % sc)
    add('  gp.kernel "softmax" ins(%%s : %s) outs(%%mx, %%sm, %%p : %s, %s, %s) {' % (sc, rowt, rowt, sc))
    add('  ^bb0(%%i: %s, %%m: %s, %%u: %s, %%o: %s):' % (sc, rowt, rowt, sc))
    add('    %ninf = arith.constant 0xFF800000 : f32')
    add('    %zero = arith.constant 0.0 : f32')
    add('    %scale = arith.constant 0.25 : f32')
    add('    linalg.fill ins(%%ninf : f32) outs(%%m : %s)' % rowt)
    add('    linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>, affine_map<(h, i, j) -> (h, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%%i : %s) outs(%%m : %s) {' % (sc, rowt))
    add('    ^bb0(%a: f32, %b: f32):')
    add('      %t = arith.maximumf %a, %b : f32')
    add('      linalg.yield %t : f32')
    add('    }')
    add('    linalg.fill ins(%%zero : f32) outs(%%u : %s)' % rowt)
    add('    linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>, affine_map<(h, i, j) -> (h, i)>, affine_map<(h, i, j) -> (h, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%%i, %%m : %s, %s) outs(%%u : %s) {' % (sc, rowt, rowt))
    add('    ^bb0(%a: f32, %mm: f32, %b: f32):')
    add('      %d = arith.subf %a, %mm : f32')
    add('      %ds = arith.mulf %d, %scale : f32')
    add('      %e = math.exp %ds : f32')
    add('      %t = arith.addf %e, %b : f32')
    add('      linalg.yield %t : f32')
    add('    }')
    add('    linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>, affine_map<(h, i, j) -> (h, i)>, affine_map<(h, i, j) -> (h, i)>, affine_map<(h, i, j) -> (h, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%%i, %%m, %%u : %s, %s, %s) outs(%%o : %s) {' % (sc, rowt, rowt, sc))
    add('    ^bb0(%a: f32, %mm: f32, %uu: f32, %b: f32):')
    add('      %d = arith.subf %a, %mm : f32')
    add('      %ds = arith.mulf %d, %scale : f32')
    add('      %e = math.exp %ds : f32')
    add('      %t = arith.divf %e, %uu : f32')
    add('      linalg.yield %t : f32')
    add('    }')
    add('  }')
    add('  %%att3 = gp.buffer.alloc() : %s' % act3)
    add('  gp.kernel "mix" ins(%%p, %%v3 : %s, %s) outs(%%att3 : %s) {' % (sc, act3, act3))
    add('  ^bb0(%%a: %s, %%b: %s, %%o: %s):' % (sc, act3, act3))
    add('    %zero = arith.constant 0.0 : f32')
    add('    linalg.fill ins(%%zero : f32) outs(%%o : %s)' % act3)
    add('    linalg.generic {indexing_maps = [affine_map<(h, i, c, j) -> (h, i, j)>, affine_map<(h, i, c, j) -> (j, h, c)>, affine_map<(h, i, c, j) -> (i, h, c)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%%a, %%b : %s, %s) outs(%%o : %s) {' % (sc, act3, act3))
    add('    ^bb0(%pa: f32, %vb: f32, %acc: f32):')
    add('      %m = arith.mulf %pa, %vb : f32')
    add('      %t = arith.addf %acc, %m : f32')
    add('      linalg.yield %t : f32')
    add('    }')
    add('  }')
    add('  %%att = gp.buffer.reshape %%att3() : %s to %s' % (act3, act))
    out = 'memref<%dx%dxf32, #dev>' % (S, W)
    add('  %%y = gp.buffer.alloc() : %s' % out)
    add('  gp.kernel "out_proj" ins(%%att, %s : %s, %s) outs(%%y : %s) {' % (wo, act, wotype, out))
    add('  ^bb0(%%a: %s, %%b: %s, %%o: %s):' % (act, wotype, out))
    add('    %zero = arith.constant 0.0 : f32')
    add('    linalg.fill ins(%%zero : f32) outs(%%o : %s)' % out)
    add('    linalg.matmul ins(%%a, %%b : %s, %s) outs(%%o : %s)' % (act, wotype, out))
    add('  }')
    if tp:
        add('  gp.all_reduce sum %%y, %%y : %s to %s' % (out, out))
    add('  return %%y : %s' % out)
    add('}')
    return "\n".join(lines) + "\n"


header = "#dev = #gp.device<cuda:0>\n"
which = sys.argv[1]
if which == "block":
    sys.stdout.write("// An attention block (%d heads of %d over a width of %d, %d positions):\n// projections, per-head softmax(q k^T / 4) v, output projection. The\n// reference for tp_attention.mlir. Generated by gen_attention.py.\n" % (H, D, W, S) + header + block("attention", H, False))
else:
    sys.stdout.write("// attention.mlir as 2 tensor-parallel ranks: rank r takes heads 2r and\n// 2r + 1 (column-parallel q, k and v projections, sliced from w_qkv at\n// gp.rank), and rows 32r .. 32r + 31 of w_o (row-parallel); an all-reduce\n// sums the ranks' shares of the output. Generated by gen_attention.py.\n" + header + block("tp_attention", H // 2, True))
