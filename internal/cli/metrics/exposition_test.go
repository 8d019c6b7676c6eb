package metrics_test

import (
	"bufio"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Rules of the Prometheus text exposition format (0.0.4) and the lints of
// "promtool check metrics", checked by checkExposition when promtool is not
// there, and besides it when it is.
var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	types      = map[string]bool{"counter": true, "gauge": true, "histogram": true, "summary": true, "untyped": true}
)

// family is what checkExposition learnt of one metric.
type family struct {
	typ, help  string
	hasHelp    bool
	samplesEnd bool // another family's sample came after this one's
	samples    int
}

// checkExposition returns what in text breaks the format or a lint.
func checkExposition(text string) []string {
	var bad []string
	fail := func(line int, format string, a ...any) {
		bad = append(bad, fmt.Sprintf("line %d: %s", line, fmt.Sprintf(format, a...)))
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		fail(0, "the text does not end in a line feed")
	}
	if !utf8.ValidString(text) {
		fail(0, "the text is not UTF-8")
	}
	fams := map[string]*family{}
	get := func(name string) *family {
		if fams[name] == nil {
			fams[name] = &family{}
		}
		return fams[name]
	}
	series := map[string]bool{}
	last := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# HELP "), strings.HasPrefix(line, "# TYPE "):
			f := strings.SplitN(line[len("# TYPE "):], " ", 2)
			if len(f) != 2 || !metricName.MatchString(f[0]) {
				fail(n, "bad %q", line)
				continue
			}
			fam := get(f[0])
			if fam.samples > 0 {
				fail(n, "%s comes after samples of %s", line[:6], f[0])
			}
			if strings.HasPrefix(line, "# HELP ") {
				if fam.hasHelp {
					fail(n, "second HELP of %s", f[0])
				}
				fam.hasHelp, fam.help = true, f[1]
				if err := checkEscapes(f[1], false); err != "" {
					fail(n, "HELP of %s: %s", f[0], err)
				}
			} else {
				if fam.typ != "" || !types[f[1]] {
					fail(n, "bad or second TYPE of %s: %q", f[0], f[1])
				}
				fam.typ = f[1]
			}
		case strings.HasPrefix(line, "#"), line == "":
		default:
			name, key, err := parseSample(line)
			if err != "" {
				fail(n, "%s: %q", err, line)
				continue
			}
			fam := get(name)
			if fam.samplesEnd {
				fail(n, "samples of %s are not together", name)
			}
			if last != "" && last != name {
				get(last).samplesEnd = true
			}
			last = name
			fam.samples++
			if series[key] {
				fail(n, "series %s twice", key)
			}
			series[key] = true
		}
	}
	names := make([]string, 0, len(fams))
	for name := range fams {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		bad = append(bad, lint(name, fams[name])...)
	}
	return bad
}

// lint is promtool's lints of one family: help, the suffixes a type
// reserves, snake case.
func lint(name string, f *family) []string {
	var bad []string
	if !f.hasHelp || f.help == "" {
		bad = append(bad, name+": no help text")
	}
	if f.typ == "" && f.samples > 0 {
		bad = append(bad, name+": samples without TYPE")
	}
	switch f.typ {
	case "counter":
		if !strings.HasSuffix(name, "_total") {
			bad = append(bad, name+": a counter's name must end in _total")
		}
	case "histogram", "summary":
	default:
		for _, s := range []string{"_count", "_sum", "_bucket", "_total"} {
			if strings.HasSuffix(name, s) {
				bad = append(bad, fmt.Sprintf("%s: a %s must not end in %s", name, f.typ, s))
			}
		}
	}
	if strings.ToLower(name) != name {
		bad = append(bad, name+": not snake case")
	}
	return bad
}

// parseSample splits name{labels} value [timestamp] and returns the name
// and the series' key (name and sorted labels).
func parseSample(line string) (name, key, problem string) {
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return "", "", "no value"
	}
	name = line[:i]
	if !metricName.MatchString(name) {
		return "", "", "bad metric name"
	}
	rest := line[i:]
	var labels []string
	if rest[0] == '{' {
		var err string
		labels, rest, err = parseLabels(rest[1:])
		if err != "" {
			return "", "", err
		}
	}
	f := strings.Fields(rest)
	if len(f) < 1 || len(f) > 2 || !strings.HasPrefix(rest, " ") {
		return "", "", "want one value and at most a timestamp"
	}
	if _, err := strconv.ParseFloat(f[0], 64); err != nil && f[0] != "NaN" && f[0] != "+Inf" && f[0] != "-Inf" {
		return "", "", "bad value"
	}
	if len(f) == 2 {
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			return "", "", "bad timestamp"
		}
	}
	sort.Strings(labels)
	return name, name + "{" + strings.Join(labels, ",") + "}", ""
}

// parseLabels reads name="value",... up to the closing brace.
func parseLabels(s string) (labels []string, rest, problem string) {
	seen := map[string]bool{}
	for {
		if strings.HasPrefix(s, "}") {
			return labels, s[1:], ""
		}
		eq := strings.Index(s, `="`)
		if eq < 0 {
			return nil, "", "bad label"
		}
		ln := s[:eq]
		if !labelName.MatchString(ln) || strings.HasPrefix(ln, "__") || seen[ln] {
			return nil, "", fmt.Sprintf("bad or repeated label name %q", ln)
		}
		seen[ln] = true
		s = s[eq+2:]
		end := -1
		for j := 0; j < len(s); j++ {
			if s[j] == '\\' {
				j++
				continue
			}
			if s[j] == '"' {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, "", "unterminated label value"
		}
		if err := checkEscapes(s[:end], true); err != "" {
			return nil, "", "label " + ln + ": " + err
		}
		labels = append(labels, ln+"="+s[:end])
		s = s[end+1:]
		s = strings.TrimPrefix(s, ",")
	}
}

// checkEscapes checks a label value (quote true) or HELP text: only \\,
// \n and, in a label value, \" follow a backslash; a label value holds no
// bare double quote.
func checkEscapes(s string, quote bool) string {
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+1 == len(s) {
				return "a trailing backslash"
			}
			j++
			if c := s[j]; c != '\\' && c != 'n' && !(quote && c == '"') {
				return fmt.Sprintf("escape \\%c", c)
			}
		case '"':
			if quote {
				return "a bare double quote"
			}
		}
	}
	return ""
}
