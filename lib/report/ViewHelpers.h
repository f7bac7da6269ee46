//===- ViewHelpers.h - What the text and JSON views share -*- C++ -*-===//
#ifndef PERFMODEL_REPORT_VIEWHELPERS_H
#define PERFMODEL_REPORT_VIEWHELPERS_H

#include "perfmodel/Report.h"

#include <string>
#include <vector>

namespace perfmodel::views {

/// Where a parameter's value came from, as the views name it.
const char *originName(Parameter::Origin O);

/// The calls a loop makes that no model costs: the prediction is a lower
/// bound (none when the in-core model did not run or costs them all).
const std::vector<std::string> &uncostedCalls(const LoopReport &LR);

/// A level's fill rates by working set: "46 B/cy at 64KiB, 61.4 at 512KiB".
std::string fromNextBySetText(const CacheLevel &L);

} // namespace perfmodel::views

#endif
