# One row per measured result of a run --json document: the faster of current and current_tuned, the oracle and
# the measured floor (floor_copy), warm and cold medians in us, with the ratios.
def m(p; k): (p[k].median_us? // null);
def r2: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
def pct: if . == null then "-" else ((. * 100 | round | tostring) + "%") end;
.scopes[] | select(.paths) |
  ([.paths[] | select((.mode // "faithful") == "faithful" or .mode == "floor")] | group_by(.name)
   | map({key: .[0].name, value: .[0]}) | from_entries) as $p |
  ([$p.current, $p.current_tuned] | map(select(.))) as $cur |
  ($cur | map(m(.; "time")) | min) as $cw | ($cur | map(m(.; "time_cold")) | map(select(.)) | min) as $cc |
  m($p.oracle; "time") as $ow | m($p.oracle; "time_cold") as $oc |
  m($p.floor_copy; "time") as $fw | m($p.floor_copy; "time_cold") as $fc |
  [.family, .alias, .scope_ids[0][-12:],
   ((.config.form // "" | sub("routing_form_"; "")) + (if .config.distribution then " " + .config.distribution.generator else "" end)),
   ($cw | r2), ($ow | r2), (if $ow then $cw / $ow else null end | r2),
   ($cc | r2), ($oc | r2), (if $oc then $cc / $oc else null end | r2),
   ($fw | r2), ($fc | r2), (if $ow and $fw then $fw / $ow else null end | pct),
   (if $oc and $fc then $fc / $oc else null end | pct)]
  | "| " + join(" | ") + " |"
