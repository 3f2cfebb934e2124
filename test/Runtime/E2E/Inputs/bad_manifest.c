/* An artifact whose manifest has a malformed number (a dimension "x9"):
 * gpRtArtifactLoad must fail with a message, not terminate the process. */
const char gp_manifest[] =
    "graphpart-artifact 2\ntarget host\narena 0\nhost-arena 0\n"
    "generators 0\nseed 0\ndevice 0\nentry f 1 0\n"
    "arg memref f32 1 x9 cuda:0\n";
int gp_entry_f(void *program, void **args, void **results) { return 0; }
