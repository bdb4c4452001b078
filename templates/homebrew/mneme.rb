# Homebrew formula for mneme, filled in by scripts/homebrew for each release.
class Mneme < Formula
  desc "Durable, human-approved memory for AI coding agents, kept as plain files in git"
  homepage "__HOMEPAGE__"
  version "__VERSION__"
  license any_of: ["MIT", "Apache-2.0"]

  on_macos do
    on_arm do
      url "__URL__/v__VERSION__/mneme-__VERSION__-aarch64-apple-darwin.tar.gz"
      sha256 "__SHA256_aarch64-apple-darwin__"
    end
    on_intel do
      url "__URL__/v__VERSION__/mneme-__VERSION__-x86_64-apple-darwin.tar.gz"
      sha256 "__SHA256_x86_64-apple-darwin__"
    end
  end

  on_linux do
    on_arm do
      url "__URL__/v__VERSION__/mneme-__VERSION__-aarch64-unknown-linux-musl.tar.gz"
      sha256 "__SHA256_aarch64-unknown-linux-musl__"
    end
    on_intel do
      url "__URL__/v__VERSION__/mneme-__VERSION__-x86_64-unknown-linux-musl.tar.gz"
      sha256 "__SHA256_x86_64-unknown-linux-musl__"
    end
  end

  def install
    bin.install "mneme"
  end

  test do
    assert_match "mneme #{version}", shell_output("#{bin}/mneme --version")
  end
end
