//===- ParameterPtx.h - slow kernels for the stream-ordering tests --------===//
//
// slow_add(int64 *y, const int64 *x, const int64 *w, uint64 ns): waits `ns`
// nanoseconds (the global timer), then *y = *x + *w; one thread.
// slow_store(int64 *p, int64 v, uint64 ns): waits `ns`, then *p = v.
// Waiting first makes a missing order between streams show: work that does
// not wait for them reads or writes too early. PTX, compiled by the driver.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_UNITTESTS_RUNTIME_PARAMETERPTX_H
#define GRAPHPART_UNITTESTS_RUNTIME_PARAMETERPTX_H

inline const char *kParameterPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry slow_add(.param .u64 y, .param .u64 x, .param .u64 w,
                         .param .u64 ns)
{
  .reg .pred %p;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [y];
  ld.param.u64 %rd2, [x];
  ld.param.u64 %rd3, [w];
  ld.param.u64 %rd4, [ns];
  mov.u64 %rd5, %globaltimer;
WAIT:
  mov.u64 %rd6, %globaltimer;
  sub.u64 %rd7, %rd6, %rd5;
  setp.lt.u64 %p, %rd7, %rd4;
  @%p bra WAIT;
  cvta.to.global.u64 %rd8, %rd1;
  cvta.to.global.u64 %rd9, %rd2;
  cvta.to.global.u64 %rd10, %rd3;
  ld.global.u64 %rd6, [%rd9];
  ld.global.u64 %rd7, [%rd10];
  add.s64 %rd11, %rd6, %rd7;
  st.global.u64 [%rd8], %rd11;
  ret;
}
.visible .entry slow_store(.param .u64 p, .param .u64 v, .param .u64 ns)
{
  .reg .pred %p;
  .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [v];
  ld.param.u64 %rd3, [ns];
  mov.u64 %rd4, %globaltimer;
WAIT:
  mov.u64 %rd5, %globaltimer;
  sub.u64 %rd6, %rd5, %rd4;
  setp.lt.u64 %p, %rd6, %rd3;
  @%p bra WAIT;
  cvta.to.global.u64 %rd7, %rd1;
  st.global.u64 [%rd7], %rd2;
  ret;
}
)";

#endif // GRAPHPART_UNITTESTS_RUNTIME_PARAMETERPTX_H
