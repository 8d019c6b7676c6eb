// Package browsertest drives the redisson dashboard (redisson dashboard,
// cmd/redisson) in a headless Chromium: its tests build the CLI, start a
// private redis-server and the dashboard, and check what a person would see.
// It is a module of its own so that the main module does not depend on
// chromedp. Run it with `make test`, or `go test ./...` here after
// `bash ../scripts/ensure-chromium.sh`; the screenshots are written to
// artifacts/ (or $BROWSERTEST_ARTIFACTS).
package browsertest
