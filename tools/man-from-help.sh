#!/bin/sh
# man-from-help.sh TOOL VERSION SUMMARY: writes on stdout a section-1 man
# page for TOOL made of its --help text (stdout and stderr: gpgpu-bench
# prints its usage on stderr), so that the page never says other than the
# tool does.
set -e
tool=$1
version=$2
summary=$3
name=$(basename "$tool")
help=$("$tool" --help 2>&1)
upper=$(printf '%s' "$name" | tr 'a-z' 'A-Z')
printf '.TH %s 1 "" "libgpgpu %s" "User Commands"\n' "$upper" "$version"
printf '.SH NAME\n%s \\- %s\n' "$name" "$summary"
printf '.SH DESCRIPTION\nThe text of \\fB%s \\-\\-help\\fR:\n.PP\n.nf\n' "$name"
# roff: escape backslashes, and lines that start with a dot or a quote
printf '%s\n' "$help" | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/"
printf '.fi\n.SH SEE ALSO\n.BR gpgpu (7),\nthe overview of libgpgpu and its calls.\n'
