/*
 * Clean stops of the long-running commands (run, replay, record, sweep):
 * SIGINT and SIGTERM.
 *
 * The first signal only records its number in gs_scn_interrupt_sig and
 * says on stderr what happens next; the drivers poll it (at least every
 * 50 ms), stop submitting, cancel what has not started, wait a bounded
 * time for what is running, and write a consistent run directory marked
 * interrupted (run.c).  A second signal exits at once with status
 * 128 + signo: every output file is written through a temporary and
 * renamed (common/outfile.h), so no partial file is left under its name.
 *
 * Threads: the handler runs on whichever thread has the signals unblocked;
 * gs_scn_run blocks them while it creates the backends and the engine, so
 * every engine thread inherits a blocked mask and only the driver thread
 * takes them (injected sleeps are never cut short).  The handler uses
 * async-signal-safe calls only (write, _exit).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

volatile sig_atomic_t gs_scn_interrupt_sig = 0;

static struct sigaction old_int, old_term;
static int installed;

static void say(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

static void on_signal(int sig)
{
    if (gs_scn_interrupt_sig) {
        say("\ngapscope: second signal: exiting now\n");
        _exit(128 + sig);
    }
    gs_scn_interrupt_sig = sig;
    say(sig == SIGINT ? "\ngapscope: SIGINT" : "\ngapscope: SIGTERM");
    say(": stopping: no more submissions, queued work cancelled, running partitions "
        "finish; the run directory is written and marked interrupted (a second signal "
        "exits at once)\n");
}

void gs_scn_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    gs_scn_interrupt_sig = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    installed = 1;
}

void gs_scn_interrupt_restore(void)
{
    if (!installed)
        return;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    installed = 0;
}

const char *gs_scn_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig ? "signal" : "";
}
