/*
 * The Slurm driver without a cluster (test_slurm_cluster.c has the real
 * one): the parsers on the lines Slurm prints (and on broken ones: errors
 * name the command and the line), the sbatch script of --dry-run, the
 * usage errors, and a whole sweep through stand-in sbatch/squeue/sacct
 * commands on PATH (squeue forgetting the jobs at once, as a controller
 * does after MinJobAge, so the fates come from sacct), with a task the
 * stand-in fails (NODE_FAIL) and a --resume that runs just that one.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test/test.h"
#include "slurm.h"

GS_TEST(slurm_parse_squeue_sacct_sbatch)
{
    gs_slurm_state *s = NULL;
    size_t n = 0;
    gs_err err;
    gs_err_clear(&err);
    GS_CHECK_OK(gs_slurm_parse_squeue(&s, &n,
                                      "77_3|RUNNING|node[01-02]\n77_[5-7,9%2]|PENDING|\n\n77_4|COMPLETING|n1\n",
                                      &err));
    GS_REQUIRE(n == 6);
    GS_CHECK(!strcmp(s[0].job, "77") && s[0].task == 3 && !strcmp(s[0].state, "RUNNING") &&
             !strcmp(s[0].nodes, "node[01-02]"));
    GS_CHECK(s[1].task == 5 && s[2].task == 6 && s[3].task == 7 && s[4].task == 9 && !s[4].nodes[0]);
    GS_CHECK(s[5].task == 4 && gs_slurm_phase(s[5].state) == GS_TASK_RUNNING);
    GS_CHECK_OK(gs_slurm_parse_sacct(&s, &n, "78_0|CANCELLED by 0|0:15|gsnode\n78_[1-2]|PENDING|0:0|None assigned\n",
                                     &err));
    GS_REQUIRE(n == 9);
    GS_CHECK(!strcmp(s[6].state, "CANCELLED") && s[6].exit_code == 0 && s[6].signal == 15);
    GS_CHECK(s[7].task == 1 && s[8].task == 2 && !s[8].nodes[0]);
    free(s);
    s = NULL;
    n = 0;
    /* Broken lines: the command and the line number. */
    const char *bad[] = {"77_3|RUNNING|n1\nhello\n", "77_x|RUNNING|n1\n", "77_3|running|n1\n", "77_[3-|PENDING|\n",
                         "_3|RUNNING|n1\n", "77_3|RUNNING\n"};
    int line[] = {2, 1, 1, 1, 1, 1};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        gs_err_clear(&err);
        char want[32];
        snprintf(want, sizeof want, "squeue output:%d", line[k]);
        GS_CHECK_MSG(gs_slurm_parse_squeue(&s, &n, bad[k], &err) == GS_ERR_FORMAT && strstr(err.msg, want),
                     "%zu: %s", k, err.msg);
    }
    gs_err_clear(&err);
    GS_CHECK(gs_slurm_parse_sacct(&s, &n, "1_0|COMPLETED|zero|n1\n", &err) == GS_ERR_FORMAT &&
             strstr(err.msg, "sacct output:1") && strstr(err.msg, "EXIT:SIGNAL"));
    free(s);
    char job[32];
    GS_CHECK_OK(gs_slurm_parse_sbatch(job, sizeof job, "1234\n", &err));
    GS_CHECK(!strcmp(job, "1234"));
    GS_CHECK_OK(gs_slurm_parse_sbatch(job, sizeof job, "99;cluster2\n", &err));
    GS_CHECK(!strcmp(job, "99"));
    gs_err_clear(&err);
    GS_CHECK(gs_slurm_parse_sbatch(job, sizeof job, "Submitted batch job 5\n", &err) == GS_ERR_FORMAT &&
             strstr(err.msg, "sbatch --parsable output:1"));
    /* Phases of Slurm's words. */
    GS_CHECK(gs_slurm_phase("PENDING") == GS_TASK_PENDING && gs_slurm_phase("COMPLETED") == GS_TASK_DONE);
    GS_CHECK(gs_slurm_phase("TIMEOUT") == GS_TASK_FAILED && gs_slurm_phase("NODE_FAIL") == GS_TASK_FAILED &&
             gs_slurm_phase("OUT_OF_MEMORY") == GS_TASK_FAILED);
    char q[64];
    GS_CHECK(gs_slurm_shell_quote(q, sizeof q, "it's") && !strcmp(q, "'it'\\''s'"));
    GS_CHECK(!gs_slurm_shell_quote(q, 4, "long"));
}

static const char *small_scenario(const char *dir)
{
    static char path[700];
    snprintf(path, sizeof path, "%s/small.ini", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs("; small.ini - test_slurm.c\n[engine]\nsynth_threads = 1\nprove_threads = 1\ntrim = off\n"
          "verify = after_unlock\n[jobs]\nkinds = circuit:1\ncount = 2\ninterarrival = fixed:1ms\n"
          "size_map = circuit:9\nreplay = afap\n",
          f);
    fclose(f);
    return path;
}

GS_TEST(slurm_cli_dry_run_and_usage)
{
    GS_TEST_NEED_BIN();
    const char *b = gs_test_bin();
    const char *d = gs_test_tmpdir(), *scn = small_scenario(d);
    GS_REQUIRE(scn);
    char cmd[4096], out[32768], p[900];
    snprintf(cmd, sizeof cmd,
             "%s sweep %s --vary inject.tracker_hold=0ms,5ms,10ms --reps 2 --out %s/dry --slurm --dry-run "
             "--partition gpu --gpus-per-task 1 --array-max 4 --time 10:00 --sbatch --account=lab",
             b, scn, d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 0);
    GS_CHECK_MSG(strstr(out, "#SBATCH --array=0-7%4\n") && strstr(out, "#SBATCH --partition=gpu\n") &&
                     strstr(out, "#SBATCH --gres=gpu:1\n") && strstr(out, "#SBATCH --time=10:00\n") &&
                     strstr(out, "#SBATCH --account=lab\n") && strstr(out, "--task \"$i\"") &&
                     strstr(out, "SLURM_ARRAY_TASK_ID") && strstr(out, "exit=$rc"),
                 "%s", out);
    snprintf(p, sizeof p, "%s/dry", d);
    GS_CHECK_MSG(access(p, F_OK) != 0, "--dry-run wrote %s", p); /* nothing written */
    /* Without --gpus-per-task: no GRES line. */
    snprintf(cmd, sizeof cmd, "%s sweep %s --vary inject.tracker_hold=0ms,5ms --reps 1 --out %s/dry --slurm --dry-run",
             b, scn, d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 0);
    GS_CHECK_MSG(!strstr(out, "--gres") && strstr(out, "--array=0-2\n"), "%s", out);
    /* A bad --vary value costs no cluster time: checked before submitting. */
    snprintf(cmd, sizeof cmd, "%s sweep %s --vary engine.trim=sometimes --out %s/bad --slurm --dry-run", b, scn, d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 2);
    GS_CHECK_MSG(strstr(out, "sometimes") && !strstr(out, "#SBATCH"), "%s", out);
    /* Slurm options need --slurm; --resume needs an earlier submission. */
    snprintf(cmd, sizeof cmd, "%s sweep %s --vary inject.tracker_hold=0ms,5ms --partition gpu", b, scn);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 2);
    GS_CHECK_MSG(strstr(out, "need --slurm"), "%s", out);
    snprintf(cmd, sizeof cmd, "%s sweep %s --vary inject.tracker_hold=0ms,5ms --out %s/none --slurm --resume", b, scn,
             d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 2);
    GS_CHECK_MSG(strstr(out, "--resume: no earlier submission") && strstr(out, "none/slurm/task.sh"), "%s", out);
    snprintf(cmd, sizeof cmd, "%s sweep %s --vary inject.tracker_hold=0ms,5ms --reps 1 --task 3 --out %s/t", b, scn, d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 2);
    GS_CHECK_MSG(strstr(out, "--task 3") && strstr(out, "runs 0 to 2"), "%s", out);
    snprintf(cmd, sizeof cmd, "%s gate --slurm --base %s --head %s --reps 2 --dry-run --run-out %s/g", b, scn, scn, d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 0);
    GS_CHECK_MSG(strstr(out, "--array=0-3\n") && strstr(out, "/base-%03d") && strstr(out, "/head-%03d") &&
                     strstr(out, "case $((i % 2))"),
                 "%s", out);
    snprintf(cmd, sizeof cmd, "%s gate --base %s --head %s --reps 2", b, scn, scn);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 2);
    GS_CHECK_MSG(strstr(out, "need --slurm"), "%s", out);
}

/* Stand-ins: sbatch runs the array's tasks itself, one after another in
 * the background, and appends each fate to sacct.txt (task $FAKE_FAIL is
 * not run: NODE_FAIL); squeue has forgotten every job; sacct prints
 * sacct.txt. */
static int write_exec(const char *dir, const char *name, const char *text)
{
    char p[800];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (!gs_test_write_text(p, text))
        return 0;
    return chmod(p, 0755) == 0;
}

static int write_fakes(const char *dir)
{
    return write_exec(dir, "sbatch",
                      "#!/bin/bash\n[ \"$1\" = --parsable ] || exit 2\nd=$(dirname \"$0\")\n"
                      "n=$(cat \"$d/next\" 2>/dev/null || echo 500); echo $((n + 1)) > \"$d/next\"\n"
                      "spec=$(sed -n 's/^#SBATCH --array=//p' \"$2\"); spec=${spec%%%*}\n"
                      "(for item in ${spec//,/ }; do for i in $(seq ${item%-*} ${item#*-}); do\n"
                      "  if [ \"$i\" = \"${FAKE_FAIL:-}\" ]; then echo \"${n}_$i|NODE_FAIL|0:0|fakenode\" >> "
                      "\"$d/sacct.txt\"; continue; fi\n"
                      "  SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_JOB_ID=$n SLURMD_NODENAME=fakenode bash \"$2\" >/dev/null 2>&1\n"
                      "  rc=$?; st=COMPLETED; [ $rc = 0 ] || st=FAILED\n"
                      "  echo \"${n}_$i|$st|$rc:0|fakenode\" >> \"$d/sacct.txt\"\n"
                      "done; done) </dev/null >/dev/null 2>&1 &\necho \"$n\"\n") &&
           write_exec(dir, "squeue", "#!/bin/sh\necho 'slurm_load_jobs error: Invalid job id specified' >&2\nexit 1\n") &&
           write_exec(dir, "sacct", "#!/bin/sh\ncat \"$(dirname \"$0\")/sacct.txt\" 2>/dev/null\nexit 0\n");
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 65536);
    if (buf)
        buf[fread(buf, 1, 65535, f)] = '\0';
    fclose(f);
    return buf;
}

GS_TEST(slurm_sweep_through_stand_in_commands)
{
    GS_TEST_NEED_BIN();
    const char *b = gs_test_bin();
    const char *d = gs_test_tmpdir(), *scn = small_scenario(d);
    char fakes[700], cmd[4096], out[32768], p[900];
    snprintf(fakes, sizeof fakes, "%s/bin", d);
    mkdir(fakes, 0755);
    GS_REQUIRE(scn && write_fakes(fakes));
    const char *args = "--vary inject.tracker_hold=0ms,10ms --reps 1 --seed 2 --slurm --poll 1";
    snprintf(cmd, sizeof cmd, "FAKE_FAIL=1 PATH=%s:$PATH %s sweep %s %s --out %s/sw", fakes, b, scn, args, d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 1);
    GS_CHECK_MSG(strstr(out, "task 1 (job 500_1): failed: NODE_FAIL on fakenode") && strstr(out, "--resume"), "%s",
                 out);
    snprintf(p, sizeof p, "%s/sw/sweep.csv", d);
    char *csv = slurp(p);
    GS_REQUIRE(csv);
    GS_CHECK_MSG(strstr(csv, "\n1,") && strstr(strstr(csv, "\n1,"), ",,,,,,,,\"slurm task 500_1 failed: NODE_FAIL"),
                 "%s", csv);
    free(csv);
    snprintf(p, sizeof p, "%s/sw/slurm.md", d);
    char *md = slurp(p);
    GS_CHECK_MSG(md && strstr(md, "## Tasks not done") && strstr(md, "| 1 | 500_1 | failed | NODE_FAIL"), "%s",
                 md ? md : "(no slurm.md)");
    free(md);
    /* --resume submits task 1 alone; its fate comes from sacct again. */
    snprintf(cmd, sizeof cmd, "PATH=%s:$PATH %s sweep %s %s --out %s/sw --resume", fakes, b, scn, args, d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 0);
    GS_CHECK_MSG(strstr(out, "1 task to submit again") && strstr(out, "--array=1)"), "%s", out);
    snprintf(p, sizeof p, "%s/sw/slurm/jobs", d);
    char *jobs = slurp(p);
    GS_CHECK_MSG(jobs && !strcmp(jobs, "500 0-2\n501 1\n"), "%s", jobs ? jobs : "(none)");
    free(jobs);
    snprintf(p, sizeof p, "%s/sw/tasks.csv", d);
    char *tasks = slurp(p);
    GS_CHECK_MSG(tasks && strstr(tasks, ",501_1,COMPLETED,\"fakenode\"") &&
                     strstr(tasks, "\n0,") && !strstr(tasks, "FAIL"),
                 "%s", tasks ? tasks : "(none)");
    free(tasks);
    snprintf(p, sizeof p, "%s/sw/sweep.csv", d);
    csv = slurp(p);
    GS_CHECK_MSG(csv && !strstr(csv, ",,,,,,,,") && strstr(csv, "sw/run-001"), "%s", csv ? csv : "(none)");
    free(csv);
    /* The stand-in runs one task at a time: slurm.md says none shared a host. */
    snprintf(p, sizeof p, "%s/sw/slurm.md", d);
    md = slurp(p);
    GS_CHECK_MSG(md && strstr(md, "No two runs ran on one host at the same time"), "%s", md ? md : "(none)");
    free(md);
    /* Tasks 0 and 2 as if they had run side by side on fakenode (their
     * status files say when): a merge again names them and says how to
     * measure each alone; task 1 (its own time) is not named. */
    for (int i = 0; i < 3; i += 2) {
        snprintf(p, sizeof p, "%s/sw/slurm/task-%03d.status", d, i);
        char *stf = slurp(p), *keep = stf ? strstr(stf, "start=") : NULL, *e = keep ? strstr(keep, "end=") : NULL;
        GS_REQUIRE(stf && keep && e && strchr(e, '\n'));
        *keep = '\0';
        char text[4096];
        snprintf(text, sizeof text, "%sstart=1000.5\nend=%s\n%s", stf, i ? "1003.25" : "1002", strchr(e, '\n') + 1);
        GS_REQUIRE(gs_test_write_text(p, text));
        free(stf);
    }
    snprintf(cmd, sizeof cmd, "PATH=%s:$PATH %s sweep %s %s --out %s/sw --resume", fakes, b, scn, args, d);
    GS_CHECK_EQ_INT(gs_test_sh(out, sizeof out, cmd), 0);
    GS_CHECK_MSG(strstr(out, "2 of 3 runs ran beside another run on the same host") && strstr(out, "--exclusive"),
                 "%s", out);
    snprintf(p, sizeof p, "%s/sw/slurm.md", d);
    md = slurp(p);
    const char *did = md ? strstr(md, "The runs that did (task: host): 0: ") : NULL;
    GS_CHECK_MSG(did && strstr(did, ", 2: ") && !strstr(did, " 1: "), "%s", md ? md : "(none)");
    free(md);
}

/* Which runs shared a host at the same time: overlap on one host only,
 * touching ends are not overlap, unknown times and tasks that did not run
 * are never marked. */
GS_TEST(slurm_beside_by_host_and_time)
{
    gs_slurm_task t[6];
    memset(t, 0, sizeof t);
    const char *host[] = {"a", "a", "b", "a", "", "a"};
    double t0[] = {10, 12, 11, 20, 10, 0}, t1[] = {15, 14, 13, 25, 30, 0};
    for (int i = 0; i < 6; i++) {
        snprintf(t[i].host, sizeof t[i].host, "%s", host[i]);
        t[i].start_s = t0[i], t[i].end_s = t1[i];
    }
    snprintf(t[4].node, sizeof t[4].node, "b"); /* no host: its node names it (b, beside task 2) */
    t[3].start_s = 15;                          /* starts as task 0 ends: not beside */
    gs_slurm_array a;
    memset(&a, 0, sizeof a);
    a.n = 6, a.t = t;
    unsigned char ran[6] = {1, 1, 1, 1, 1, 1}, beside[6];
    GS_CHECK_EQ_INT(gs_slurm_array_beside(&a, ran, beside), 4);
    GS_CHECK(beside[0] && beside[1] && beside[2] && !beside[3] && beside[4] && !beside[5]);
    ran[1] = 0; /* failed: neither it nor its overlap counts */
    GS_CHECK_EQ_INT(gs_slurm_array_beside(&a, ran, beside), 2);
    GS_CHECK(!beside[0] && !beside[1] && beside[2] && beside[4]);
    char note[512];
    gs_slurm_beside_note(note, sizeof note, 2, 5);
    GS_CHECK_MSG(!strncmp(note, "2 of 5 runs ran beside another run", 34) && strstr(note, "--sbatch --exclusive"),
                 "%s", note);
}
