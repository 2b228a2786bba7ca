// PocketSphinx 5prealpha (Debian 12: libpocketsphinx-dev) and the sphinxbase logging control.
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/cmn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int pipe2(int fds[2], int flags);   /* GNU; unistd.h declares it only under _GNU_SOURCE */

/// A pipe whose ends are closed on exec, so that no process spawned meanwhile keeps it open.
static inline int soundscape_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/// Starts the N-best search of the decoder's last utterance in a forked copy of this process. The child
/// builds the word lattice and writes up to `limit` hypotheses, best first, to `fd` as "score words\n"
/// lines (one write each, as found), then exits. Building a grammar search's lattice takes time that grows
/// with the square of its word exits and cannot be interrupted; a child process can be killed when the
/// answer comes too late, and leaves the parent's decoder free at once. The child runs C code only (no
/// Swift runtime, whose locks another thread may have held at the fork), with PocketSphinx's logging
/// off so that it does not write into the parent's log file. Returns the child's pid (0 never), or -1.
static inline pid_t soundscape_fork_nbest(ps_decoder_t *ps, int limit, int read_fd, int write_fd) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    close(read_fd);
    err_set_logfp(NULL);
    int found = 0;
    ps_nbest_t *it = ps_nbest(ps);
    char line[2048];
    while (it != NULL && found < limit) {
        int32 score = 0;
        const char *hyp = ps_nbest_hyp(it, &score);
        if (hyp != NULL) {
            int n = snprintf(line, sizeof line, "%d %s\n", (int)score, hyp);
            if (n < 0) break;
            if (n >= (int)sizeof line) { n = (int)sizeof line - 1; line[n - 1] = '\n'; }
            const char *p = line;
            while (n > 0) {
                ssize_t w = write(write_fd, p, (size_t)n);
                if (w <= 0) _exit(1);
                p += w;
                n -= (int)w;
            }
            found += 1;
        }
        it = ps_nbest_next(it);
    }
    _exit(0);
}
