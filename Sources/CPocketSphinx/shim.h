// PocketSphinx 5prealpha (Debian 12: libpocketsphinx-dev) and the sphinxbase logging control.
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/cmn.h>
// malloc_trim: the recognizer gives the heap pages its replaced grammar searches freed back to the system.
#include <malloc.h>
