#!/usr/bin/env python3
"""Build test/fixtures/import/nsys-small.sqlite: a small Nsight Systems SQLite
export (`nsys export --type sqlite`) with a known answer, from the table and
column names of NVIDIA's "SQLite Export Schema Reference" (Nsight Systems
documentation) and the CUPTI enums (cupti_activity.h: CUpti_ActivityMemcpyKind
1 HtoD; CUpti_ActivityMemoryKind 1 pageable, 3 device).  Only the columns the
importer reads plus a few others that real exports carry are created.

  python3 traces/gen/nsys_fixture.py [OUT.sqlite]

Process 777: main thread 777 ("python"), worker thread 778 ("worker"); device 0,
stream 13.  Times below in microseconds (the file holds nanoseconds).

  device ops                                  launched by (correlation id)
  K0 kernel   [1003, 1010)  reduce_kernel      main  cudaLaunchKernel [1000,1002) corr 100
  M1 memcpy   [1100, 1150)  HtoD pageable      main  cudaMemcpy       [1020,1160) corr 101
  K1 kernel   [1300, 1400)  scale_kernel       main  cudaLaunchKernel [1290,1295) corr 102
  S1 memset   [1600, 1610)                     worker cudaMemsetAsync [1590,1592) corr 103

  gap [1010,1100) ends with M1: main in nothing until 1020 (other 10), then in
      the pageable cudaMemcpy (h2d_pageable 80)
  gap [1150,1300) ends with K1: main still in that cudaMemcpy until 1160
      (h2d_pageable 10), NVTX push/pop "prep" [1160,1200) (host_compute 40),
      OSRT pthread_mutex_lock [1200,1250) (lock_wait/other 50: no holder known),
      OSRT pthread_cond_wait [1250,1280) (blocked_futex 30), nothing [1280,1290)
      (other 10), the launch [1290,1295) (host_compute 5), nothing (other 5)
  gap [1400,1600) ends with S1: worker in OSRT nanosleep [1400,1500) (sleep 100),
      read [1500,1550) (io 50), cudaStreamSynchronize [1550,1580) (cuda_sync 30),
      nothing (other 10), the memset call [1590,1592) (host_compute 2), other 8

  span [1003, 1610) = 607, busy 7 + 50 + 100 + 10 = 167, util 167/607, idle 440:
  h2d_pageable 90, host_compute 47, lock_wait/other 50, blocked_futex 30,
  sleep 100, io 50, cuda_sync 30, other 43.
Also: one kernel row whose end precedes its start (skipped), an NVTX mark
(eventType 34, ignored), globalTid/globalPid with a hardware id in the high
bits (pid = globalTid / 0x1000000 % 0x1000000, tid = globalTid % 0x1000000).
"""
import os
import sqlite3
import sys

US = 1000
HW = 1 << 56                       # high bits the decoding must ignore
PID = 777
GPID = HW | (PID << 24)
MAIN = GPID | 777
WORKER = GPID | 778


def build(path):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript("""
    CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
    CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL PRIMARY KEY, name TEXT, busLocation TEXT,
        totalMemory INTEGER, smCount INTEGER, chipName TEXT);
    CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER, uuid TEXT,
        numMultiprocessors INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
        eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
        nameId INTEGER NOT NULL REFERENCES StringIds(id), returnValue INTEGER NOT NULL,
        callchainId INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
        deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
        streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
        demangledName INTEGER NOT NULL REFERENCES StringIds(id),
        shortName INTEGER NOT NULL REFERENCES StringIds(id),
        mangledName INTEGER REFERENCES StringIds(id), launchType INTEGER,
        cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
        gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
        blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
        staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
        localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
        gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
        sharedMemoryLimitConfig INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
        deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
        streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
        bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,
        srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,
        dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
        graphNodeId INTEGER, virtualAddress INTEGER);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
        deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
        streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
        value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER,
        memKind INTEGER);
    CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
        rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
        endGlobalTid INTEGER, textId INTEGER REFERENCES StringIds(id), domainId INTEGER,
        uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
        int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
    CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL,
        eventClass INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL
        REFERENCES StringIds(id), returnValue INTEGER NOT NULL, nestingLevel INTEGER,
        callchainId INTEGER);
    """)
    strings = ["python", "worker", "cudaLaunchKernel_v7000", "cudaMemcpy_v3020",
               "cudaMemsetAsync_v3020", "cudaStreamSynchronize_v3020",
               "void reduce_kernel<256>(float*, int)", "reduce_kernel",
               "void scale_kernel<float>(float*, float, int)", "scale_kernel", "prep",
               "pthread_mutex_lock", "pthread_cond_wait", "nanosleep", "read", "bad_kernel"]
    sid = {s: i + 1 for i, s in enumerate(strings)}
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(v, k) for k, v in sid.items()])
    db.executemany("INSERT INTO ThreadNames VALUES (?, 0, ?)",
                   [(sid["python"], MAIN), (sid["worker"], WORKER)])
    db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H200', '0000:19:00.0', "
               "150820110336, 132, 'GH100')")
    db.execute("INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (0, 0, ?, 'GPU-x', 132)", (PID,))

    def rt(a, b, tid, corr, name):
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, ?, 0, NULL)",
                   (a * US, b * US, tid, corr, sid[name]))

    rt(1000, 1002, MAIN, 100, "cudaLaunchKernel_v7000")
    rt(1020, 1160, MAIN, 101, "cudaMemcpy_v3020")
    rt(1290, 1295, MAIN, 102, "cudaLaunchKernel_v7000")
    rt(1590, 1592, WORKER, 103, "cudaMemsetAsync_v3020")
    rt(1550, 1580, WORKER, 104, "cudaStreamSynchronize_v3020")

    def kernel(a, b, corr, dem, short):
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, NULL, 13, ?, ?, ?, ?,"
                   " NULL, 0, 0, 32, 66, 1, 1, 256, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0)",
                   (a * US, b * US, corr, GPID, sid[dem], sid[short]))

    kernel(1003, 1010, 100, "void reduce_kernel<256>(float*, int)", "reduce_kernel")
    kernel(1300, 1400, 102, "void scale_kernel<float>(float*, float, int)", "scale_kernel")
    kernel(1500, 1450, 105, "bad_kernel", "bad_kernel")          # end < start: skipped
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, NULL, 13, 101, ?, "
               "4194304, 1, NULL, 1, 3, 0, 1, 0, 1, NULL, 0, NULL)", (1100 * US, 1150 * US, GPID))
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, 0, 1, NULL, 13, 103, ?, 0, "
               "1048576, 0, 3)", (1600 * US, 1610 * US, GPID))
    db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, text, globalTid, "
               "endGlobalTid, textId, domainId) VALUES (?, ?, 59, 0, NULL, ?, NULL, ?, 0)",
               (1160 * US, 1200 * US, MAIN, sid["prep"]))
    db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) "
               "VALUES (?, NULL, 34, 'a mark', ?)", (1170 * US, MAIN))

    def osrt(a, b, tid, name):
        db.execute("INSERT INTO OSRT_API VALUES (?, ?, 27, ?, ?, 0, 0, NULL)",
                   (a * US, b * US, tid, sid[name]))

    osrt(1200, 1250, MAIN, "pthread_mutex_lock")
    osrt(1250, 1280, MAIN, "pthread_cond_wait")
    osrt(1400, 1500, WORKER, "nanosleep")
    osrt(1500, 1550, WORKER, "read")
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    build(sys.argv[1] if len(sys.argv) > 1 else "test/fixtures/import/nsys-small.sqlite")
