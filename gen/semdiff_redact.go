package gen

import (
	"slices"
	"strings"
)

// redactDiff compares the redact sections. A redaction takes lines from
// what the process reads, so an added row or key narrows and a removed
// one widens.
func redactDiff(line func(string, ...any), old, new []RedactEntry) {
	show := func(e RedactEntry) string { return redactEmits(e) }
	byID := func(es []RedactEntry) map[string]RedactEntry {
		m := map[string]RedactEntry{}
		for _, e := range es {
			m[e.ID] = e
		}
		return m
	}
	oldByID, newByID := byID(old), byID(new)
	for _, e := range old {
		if _, ok := newByID[e.ID]; !ok {
			line("redact %q: removed: %s (widened)", e.ID, show(e))
		}
	}
	for _, e := range new {
		o, ok := oldByID[e.ID]
		if !ok {
			line("redact %q: added: %s (narrowed)", e.ID, show(e))
			continue
		}
		if show(o) == show(e) {
			continue
		}
		r := reach{}
		if o.Path != e.Path || o.Format != e.Format {
			r = reach{wider: true, narrower: true}
		}
		for _, k := range o.Keys {
			if !slices.ContainsFunc(e.Keys, func(n string) bool { return strings.EqualFold(n, k) }) {
				r.wider = true
			}
		}
		for _, k := range e.Keys {
			if !slices.ContainsFunc(o.Keys, func(n string) bool { return strings.EqualFold(n, k) }) {
				r.narrower = true
			}
		}
		if o.URLs != e.URLs {
			r.wider, r.narrower = r.wider || o.URLs, r.narrower || e.URLs
		}
		if o.Includes != e.Includes {
			r.wider, r.narrower = r.wider || o.Includes, r.narrower || e.Includes
		}
		line("redact %q: changed: %s -> %s (%s)", e.ID, show(o), show(e), r)
	}
}
