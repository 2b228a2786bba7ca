// zlib, for the deflate-compressed blobs of OpenStreetMap PBF files.
#include <zlib.h>
// malloc_trim (glibc): the importer gives the heap's freed pages back between its phases.
#include <malloc.h>
