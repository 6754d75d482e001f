#include "engine/export/fmu_documentation.h"

#include "engine/core/version.h"
#include "engine/export/markup_text.h"

#include <sstream>

namespace mbdrom {

namespace {

std::string rangeText(const CVariable& v) {
  return v.hasRange() ? cNumber(v.min) + " to " + cNumber(v.max) : std::string("not recorded");
}

void variableTable(std::ostringstream& x, const char* title, const std::vector<CVariable>& variables,
                   bool ranges) {
  if (variables.empty()) return;
  x << "<h2>" << title << "</h2>\n<table>\n<tr><th>name</th><th>unit</th>"
    << (ranges ? "<th>trained range</th>" : "") << "<th>what</th></tr>\n";
  for (const CVariable& v : variables)
    x << "<tr><td><code>" << markupText(v.name) << "</code></td><td>"
      << markupText(v.unit.empty() ? "-" : v.unit) << "</td>"
      << (ranges ? "<td>" + markupText(rangeText(v)) + "</td>" : "") << "<td>" << markupText(v.description)
      << "</td></tr>\n";
  x << "</table>\n";
}

}  // namespace

std::string fmuDocumentation(const CModel& m, const std::string& guid) {
  std::ostringstream x;
  x << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
    << markupText(m.identifier) << ": a reduced model of " << markupText(m.mechanism) << "</title>\n"
    << "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
       "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:0.2em "
       "0.5em;text-align:left}</style>\n"
    << "</head>\n<body>\n<h1>" << markupText(m.identifier) << "</h1>\n";
  x << "<p>A reduced model of the mechanism <b>" << markupText(m.mechanism) << "</b> made by "
    << markupText(m.methodName) << ", its inputs the loads of the load case <b>" << markupText(m.loadCase)
    << "</b>. It steps with its own integrator at " << cNumber(m.dt)
    << " s, the inputs held over each communication step.</p>\n";
  x << "<h2>How well it holds</h2>\n<p>"
    << markupText(m.verdict.empty()
                      ? "No verdict was recorded: the model was not checked on runs it did not see, "
                        "so nobody measured its error."
                      : m.verdict)
    << "</p>\n<p>The longest training run lasted "
    << (m.trainedSpan > 0.0 ? cNumber(m.trainedSpan) + " s" : std::string("an unrecorded time"))
    << " (the DefaultExperiment's stop time). Outside its training envelope (the output "
       "<code>envelope_distance</code> and the warnings below) the model extrapolates, with an error nobody "
       "measured.</p>\n";
  variableTable(x, "Inputs", m.inputs, true);
  variableTable(x, "Parameters", m.parameters, true);
  variableTable(x, "Outputs", m.outputs, false);
  x << "<h2>When it fails or extrapolates</h2>\n<ul>\n"
    << "<li>A step it cannot complete returns <code>fmi2Discard</code> with a message naming the cause and "
       "the "
       "time (divergence, a mechanism that does not assemble, reduced coordinates out of their region, an "
       "input "
       "or parameter that is not a number); <code>fmi2Terminated</code> is then true and "
       "<code>fmi2LastSuccessfulTime</code> the last good communication point.</li>\n"
    << "<li>Warnings, once per run (category <code>logStatusWarning</code>): the run left its training "
       "envelope, a parameter or input left its trained range, time passed the longest training run. The "
       "Boolean parameter <code>stop_outside_envelope</code> makes leaving the envelope a stop.</li>\n"
    << "<li>The FMU state can be saved, restored and serialised.</li>\n</ul>\n";
  x << "<h2>How it was made</h2>\n<p>Exported by mbdrom "
    << markupText(std::string(kVersion) + " (" + gitCommit() + ")")
    << (m.created.empty() ? std::string() : "; trained " + markupText(m.created)) << ". GUID <code>"
    << markupText(guid) << "</code>. Settings of the training: <code>" << markupText(m.settings)
    << "</code>.</p>\n<p>The C source is in <code>sources/</code>: build it for another platform with "
       "<code>cc -shared -fPIC -fvisibility=hidden -O2 *.c -lm</code>.</p>\n</body>\n</html>\n";
  return x.str();
}

}  // namespace mbdrom
