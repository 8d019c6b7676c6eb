package main

import (
	"context"
	"slices"
)

// A scenario group beyond the built-in locking ones registers itself here,
// from an init function in a file of its own (sync.go: fair and read-write
// locks; ratelimit.go: rate limiters; semaphore.go: semaphores). To add one:
//
//  1. pick a --only name and a table group title;
//  2. write the worker side: a prepare function that opens the library in
//     the worker process, warms it up and returns the run function (called
//     at the shared start time) and a cleanup; key it by a Job.Scenario name;
//  3. write the runner side: a function that builds the Jobs of one run,
//     calls r.spawn, and adds the medians with r.report.add (r.rounds
//     interleaves libraries round after round);
//  4. register both with the libraries whose settings the report prints,
//     the peer libraries' settings (librarySettings), and, if the group
//     compares against a library of its own, its base (groupBase), which
//     the ratio columns divide by the others.
//
// New job parameters go into Job.Params, so that Job does not grow a field
// per scenario.
type scenarioDef struct {
	// Name is the --only name of the group.
	Name string
	// Run runs the group's rounds and adds its measurements.
	Run func(r *Runner, ctx context.Context) error
	// Workers prepare a worker process, by Job.Scenario.
	Workers map[string]prepareFunc
	// Libs are the libraries whose settings the report prints when the
	// group runs.
	Libs []string
	// Evaluate adds the group's targets to the report (may be nil).
	Evaluate func(r *Report)
}

// prepareFunc opens a job's library in a worker process and returns its run
// and cleanup functions.
type prepareFunc func(job Job) (run func(goSignal) (Result, error), cleanup func(), err error)

// extraScenarios are the registered groups, in registration order (file
// name order of their init functions), run after the built-in ones.
var extraScenarios []scenarioDef

// groupBases are the libraries the ratio columns of a group divide by the
// others, with their column label; groups not listed use redisson-go.
var groupBases = map[string][2]string{}

// register adds a scenario group.
func register(s scenarioDef) {
	extraScenarios = append(extraScenarios, s)
	scenarioGroups = append(scenarioGroups, s.Name)
}

// extraWorker returns the worker preparation of a registered scenario.
func extraWorker(scenario string) (prepareFunc, bool) {
	for _, s := range extraScenarios {
		if p, ok := s.Workers[scenario]; ok {
			return p, true
		}
	}
	return nil, false
}

// extraLibs are the libraries of the enabled registered groups.
func (c *Config) extraLibs() []string {
	var libs []string
	for _, s := range extraScenarios {
		if c.enabledExtra(s.Name) {
			for _, l := range s.Libs {
				if !slices.Contains(libs, l) {
					libs = append(libs, l)
				}
			}
		}
	}
	return libs
}

// enabledExtra reports whether a registered group runs: only when named by
// --only, or in a default run unless --no-extra.
func (c *Config) enabledExtra(name string) bool {
	if len(c.Only) > 0 {
		return c.Only[name]
	}
	return !c.NoExtra
}
