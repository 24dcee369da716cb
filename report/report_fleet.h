/* The report's "Fleet" section (report_fleet.c; internal to report/). */
#ifndef GS_REPORT_FLEET_H
#define GS_REPORT_FLEET_H

#include "../diag/run.h"
#include "doc.h"

/* Writes the section when the run has a fleet view (r->fleet), else nothing. */
void gs_report_fleet(gs_doc *d, const gs_run *r);

#endif
