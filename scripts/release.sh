#!/usr/bin/env bash
# release.sh sets one version across every Go module in this repository,
# runs the checks, commits and tags it. RELEASING.md says when and how.
#
#   scripts/release.sh [--dry-run] VERSION      (VERSION: 1.2.3 or v1.2.3, or 1.2.3-rc.1)
#
# It sets `const Version` in version.go; in every inner module's go.mod the
# requirement on each module of this repository (the main one,
# extra/redissonotel, ...) to vVERSION; the go.work replacements of those
# versions, which keep development on the working tree; and it turns
# CHANGELOG.md's Unreleased section into "## [VERSION] - <today, UTC>". Then
# it runs $RELEASE_CHECKS (default: make test), commits "release: vVERSION"
# and tags vVERSION plus <dir>/vVERSION for every inner module, the tags Go
# resolves a nested module's versions by. It pushes nothing: it prints the
# push command.
#
# It refuses a malformed version, a tree with changes or untracked files, a
# version already tagged or already in CHANGELOG.md, and an empty Unreleased
# section. --dry-run makes the edits, shows them (git diff) and the tags it
# would create, then undoes the edits: no checks, commit or tag.
set -euo pipefail

usage() {
	sed -n '2,20s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

die() {
	echo "release: $*" >&2
	exit 1
}

dry_run=false
version=""
for arg in "$@"; do
	case "$arg" in
	--dry-run) dry_run=true ;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown flag $arg (scripts/release.sh --help)" ;;
	*)
		[[ -z "$version" ]] || die "one VERSION expected, got $version and $arg"
		version=$arg
		;;
	esac
done
[[ -n "$version" ]] || die "a VERSION is required: scripts/release.sh [--dry-run] 1.2.3"

# Semantic versioning as Go accepts it in a module version: no leading
# zeros, an optional pre-release, no build metadata.
num='(0|[1-9][0-9]*)'
if [[ ! "$version" =~ ^v?$num\.$num\.$num(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$ ]]; then
	die "malformed version \"$version\": want MAJOR.MINOR.PATCH, e.g. 1.2.3 or v1.2.3-rc.1"
fi
version=${version#v}
tag="v$version"

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(git rev-parse --show-toplevel) || die "not inside a Git work tree"
cd "$root"

[[ -z "$(git status --porcelain)" ]] || die "the work tree is not clean (commit or remove these first):
$(git status --short)"

# Every module of the repository: directory and module path.
mapfile -t mod_dirs < <(git ls-files -- 'go.mod' '*/go.mod' | grep -v '/testdata/' | sed 's|/go\.mod$||; s|^go\.mod$|.|' | sort)
declare -A mod_path
for d in "${mod_dirs[@]}"; do
	mod_path[$d]=$(sed -n 's/^module[[:space:]]*//p' "$d/go.mod" | tr -d '"' | head -1)
done
tags=("$tag")
for d in "${mod_dirs[@]}"; do
	[[ "$d" == . ]] || tags+=("$d/$tag")
done

for t in "${tags[@]}"; do
	if git rev-parse -q --verify "refs/tags/$t" >/dev/null; then
		die "tag $t exists already"
	fi
done

changelog=CHANGELOG.md
[[ -f "$changelog" ]] || die "$changelog is missing"
if grep -qF "## [$version]" "$changelog"; then
	die "$changelog has a section for $version already"
fi
grep -q '^## \[Unreleased\]' "$changelog" || die "$changelog has no \"## [Unreleased]\" section"
unreleased=$(awk '/^## \[Unreleased\]/ {on=1; next} on && /^## / {exit} on && NF {print}' "$changelog")
[[ -n "$unreleased" ]] || die "$changelog: the Unreleased section is empty; say what this release brings first"

set_versions() {
	sed -i -E "s/^const Version = \"[^\"]*\"$/const Version = \"$version\"/" version.go
	grep -qx "const Version = \"$version\"" version.go || die "version.go: no line \`const Version = \"...\"\` to set"

	local d p
	for d in "${mod_dirs[@]}"; do
		[[ "$d" != . ]] || continue
		for p in "${mod_path[@]}"; do
			# A requirement line: "require P vX" or "	P vX" inside a block.
			if grep -qE "^[[:space:]]*(require[[:space:]]+)?${p//./\\.}[[:space:]]+v" "$d/go.mod"; then
				(cd "$d" && go mod edit -require="$p@$tag")
			fi
		done
	done

	if [[ -f go.work ]]; then
		for p in "${mod_path[@]}"; do
			sed -i -E "s#^([[:space:]]*(replace[[:space:]]+)?${p//./\\.}[[:space:]]+)v[^[:space:]]+([[:space:]]+=>)#\1$tag\3#" go.work
		done
		go work edit -json go.work >/dev/null || die "go.work no longer parses"
	fi

	local today
	today=$(date -u +%Y-%m-%d)
	awk -v head="## [$version] - $today" '
		/^## \[Unreleased\]/ && !done { print; print ""; print head; done=1; next }
		{ print }' "$changelog" >"$changelog.new"
	mv "$changelog.new" "$changelog"
}

set_versions
echo "release: files set to $tag:"
git diff --stat

if $dry_run; then
	git --no-pager diff
	echo
	echo "release: dry run: would run \`${RELEASE_CHECKS:-make test}\`, commit \"release: $tag\" and tag:"
	printf '  %s\n' "${tags[@]}"
	git restore --worktree -- .
	echo "release: dry run: edits undone"
	exit 0
fi

checks=${RELEASE_CHECKS:-make test}
echo "release: running the checks: $checks"
if ! bash -c "$checks"; then
	die "the checks failed; the edits are left in the work tree for a look (git diff; undo with git restore .)"
fi

git add -u
git commit -q -m "release: $tag"
for t in "${tags[@]}"; do
	git tag -a "$t" -m "redisson $t"
done
echo "release: committed $(git rev-parse --short HEAD) and tagged:"
printf '  %s\n' "${tags[@]}"
echo "release: publish with: git push origin HEAD ${tags[*]}"
