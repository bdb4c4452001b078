#!/bin/sh
# Installs the mneme binary from a release archive, checking its SHA-256 first:
#   curl -fsSL <release>/install.sh | sh
# The release fills in its version and download address; each can be overridden:
#   MNEME_VERSION         the version to install
#   MNEME_DOWNLOAD_URL    where releases are, as <url>/v<version>/<archive>
#   MNEME_INSTALL_DIR     where the binary goes (default: ~/.local/bin)
#   MNEME_TARGET          the build to take (default: this machine's)
# On a checksum mismatch, or any other failure, nothing is installed and nothing is left behind.
set -eu

version=${MNEME_VERSION:-__MNEME_VERSION__}
base=${MNEME_DOWNLOAD_URL:-__MNEME_DOWNLOAD_URL__}
dir=${MNEME_INSTALL_DIR:-${HOME}/.local/bin}

fail() {
  echo "mneme installer: $*" >&2
  exit 1
}

case "$version$base" in
  *__MNEME_*) fail "this copy of the installer has no release filled in; set MNEME_VERSION and MNEME_DOWNLOAD_URL, or use the install.sh published with a release" ;;
esac

target=${MNEME_TARGET:-}
if [ -z "$target" ]; then
  os=$(uname -s)
  arch=$(uname -m)
  case "$arch" in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) fail "no prebuilt mneme for the $arch processor; build it with cargo install --path ." ;;
  esac
  case "$os" in
    # musl builds are static: they run on any Linux distribution.
    Linux) target="$arch-unknown-linux-musl" ;;
    Darwin) target="$arch-apple-darwin" ;;
    *) fail "no prebuilt mneme for $os here; on Windows download the .zip from the release page" ;;
  esac
fi

name="mneme-$version-$target"
archive="$name.tar.gz"
url="$base/v$version/$archive"

fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    fail "neither curl nor wget is installed"
  fi
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    fail "neither sha256sum nor shasum is installed, so the download cannot be checked"
  fi
}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t mneme)
staged=""
cleanup() {
  rm -rf "$tmp"
  if [ -n "$staged" ]; then rm -f "$staged"; fi
}
trap cleanup EXIT INT TERM

fetch "$url" "$tmp/$archive" || fail "could not download $url"
fetch "$url.sha256" "$tmp/$archive.sha256" || fail "could not download $url.sha256"
expected=$(cut -d ' ' -f 1 <"$tmp/$archive.sha256")
actual=$(sha256 "$tmp/$archive")
if [ "$expected" != "$actual" ]; then
  fail "checksum mismatch for $archive: expected $expected, got $actual; nothing was installed"
fi

tar -xzf "$tmp/$archive" -C "$tmp" || fail "could not unpack $archive"
[ -f "$tmp/$name/mneme" ] || fail "$archive does not hold $name/mneme"
mkdir -p "$dir"
# Copied beside the target, then renamed over it: a running mneme is never half-replaced.
staged="$dir/.mneme.install.$$"
cp "$tmp/$name/mneme" "$staged"
chmod 755 "$staged"
mv -f "$staged" "$dir/mneme"
staged=""

echo "installed $("$dir/mneme" --version) to $dir/mneme"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "note: $dir is not on your PATH; add it, e.g. export PATH=\"$dir:\$PATH\"" ;;
esac
