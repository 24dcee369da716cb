/*
 * Internals of the report shared by report.c and report_wake.c.  Not a
 * public interface.
 */
#ifndef GS_REPORT_INT_H
#define GS_REPORT_INT_H

#include "doc.h"
#include "report.h"

/* A list item (in the summary's definitions) naming how wake-up edges were
 * found; nothing for timelines without them. */
void gs_report_wake_note(gs_doc *d, const gs_run *r);
/* "Wake-up chains" (top chains, stacks at the top causes); nothing when
 * the analysis has neither. */
void gs_report_wake_sections(gs_doc *d, const gs_run *r);
/* One sentence for a top gap: its chain with the most time, in words. */
void gs_report_gap_chain(gs_doc *d, const gs_run *r, const gs_device_analysis *v, const gs_gap *g);

#endif
