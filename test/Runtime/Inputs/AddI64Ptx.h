//===- AddI64Ptx.h - a tiny PTX kernel for runtime tests and benchmarks ---===//
//
// add_i64(int64 *p, int64 v): *p += v, one thread.
// accumulate_i64(int64 *d, const int64 *s, int64 k): *d += *s * k, one
// thread. PTX is JIT-compiled by the driver for whatever device runs it.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TEST_RUNTIME_ADDI64PTX_H
#define GRAPHPART_TEST_RUNTIME_ADDI64PTX_H

inline const char *kAddI64Ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry add_i64(.param .u64 p, .param .u64 v)
{
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [v];
  cvta.to.global.u64 %rd3, %rd1;
  ld.global.u64 %rd4, [%rd3];
  add.s64 %rd4, %rd4, %rd2;
  st.global.u64 [%rd3], %rd4;
  ret;
}
.visible .entry accumulate_i64(.param .u64 d, .param .u64 s, .param .u64 k)
{
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [d];
  ld.param.u64 %rd2, [s];
  ld.param.u64 %rd3, [k];
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  ld.global.u64 %rd6, [%rd5];
  mul.lo.s64 %rd6, %rd6, %rd3;
  ld.global.u64 %rd7, [%rd4];
  add.s64 %rd7, %rd7, %rd6;
  st.global.u64 [%rd4], %rd7;
  ret;
}
)";

#endif // GRAPHPART_TEST_RUNTIME_ADDI64PTX_H
