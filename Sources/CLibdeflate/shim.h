// libdeflate: whole-buffer zlib decompression, for the blobs of OpenStreetMap PBF files (a PBF blob is
// inflated in one call into a buffer of its known raw size, which is the case libdeflate is made for).
#include <libdeflate.h>
