// zlib, for the deflate-compressed blobs of OpenStreetMap PBF files.
#include <zlib.h>
