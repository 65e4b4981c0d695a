//go:build release

package releasetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// brewHarness loads a formula as Homebrew would on Linux, with the few
// parts of Homebrew's formula language the formula uses: it runs the
// formula's install from the unpacked archive into a prefix, as Homebrew
// does (from the archive's top directory, Pathname#install copying), then
// its test block, whose shell_output and assert_match fail as Homebrew's
// do.
const brewHarness = `
require "fileutils"
require "pathname"

module OS
  def self.linux? = true
  def self.mac? = false
end

module Hardware
  module CPU
    def self.intel? = ENV.fetch("FORMULA_ARCH") == "amd64"
    def self.arm? = ENV.fetch("FORMULA_ARCH") == "arm64"
    def self.is_64_bit? = true
  end
end

class Pathname
  def install(*sources)
    mkpath
    sources.flatten.each do |s|
      pairs = s.is_a?(Hash) ? s : { s => File.basename(s) }
      pairs.each { |from, to| FileUtils.cp_r(from, join(to), preserve: true) }
    end
  end
end

class Formula
  class << self
    attr_reader :test_block, :urls
    def desc(_) = nil
    def homepage(_) = nil
    def license(_) = nil
    def sha256(_) = nil
    def url(u) = (@urls ||= []) << u
    def version(v = nil)
      @version = v if v
      @version
    end
    def on_macos = nil
    def on_linux = yield
    def test(&block) = @test_block = block
  end

  def prefix = Pathname(ENV.fetch("FORMULA_PREFIX"))
  def bin = prefix/"bin"
  def man1 = prefix/"share/man/man1"
  def bash_completion = prefix/"etc/bash_completion.d"
  def zsh_completion = prefix/"share/zsh/site-functions"
  def fish_completion = prefix/"share/fish/vendor_completions.d"
  def testpath = Pathname(Dir.pwd)
  def version = self.class.version

  def shell_output(cmd, result = 0)
    out = ` + "`#{cmd}`" + `
    raise "#{cmd}: exit #{$?.exitstatus}, want #{result}:\n#{out}" unless $?.exitstatus == result
    out
  end

  def assert_match(want, got)
    ok = want.is_a?(Regexp) ? want.match?(got) : got.include?(want)
    raise "#{got.inspect} does not match #{want.inspect}" unless ok
  end
end

load ARGV[0]
formula = AskConfirm.new
puts "url: #{AskConfirm.urls.join(" ")}"
Dir.chdir(ENV.fetch("FORMULA_SOURCE")) { formula.install }
Dir.chdir(ENV.fetch("HOME")) { formula.instance_eval(&AskConfirm.test_block) }
puts "the formula's test passed"
`

// The Homebrew formula, run on this machine's Linux archive: its install
// puts the four programs, the man pages, the completions and the linked
// modules' licences into the prefix, and its test block passes, which runs more than version: each
// program's help, a usage error's exit 2, and a request where nobody can
// be asked, denied by --if-headless deny with exit 1, though this
// machine's DISPLAY is set.
func TestHomebrewFormulaInstallsAndItsTestPasses(t *testing.T) {
	r := load(t)
	if runtime.GOOS != "linux" {
		t.Fatalf("the formula is run on Linux; this is %s", runtime.GOOS)
	}
	src := t.TempDir()
	run(t, "tar", "-xzf", filepath.Join(r.dir, r.archiveName("linux", runtime.GOARCH)), "-C", src)
	prefix, home := t.TempDir(), t.TempDir()
	harness := filepath.Join(t.TempDir(), "harness.rb")
	if err := os.WriteFile(harness, []byte(brewHarness), 0o644); err != nil {
		t.Fatal(err)
	}
	formula, err := os.ReadFile(filepath.Join(r.dir, "ask-confirm.rb"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(formula), "--if-headless deny") {
		t.Errorf("the formula's test asks nothing headless:\n%s", formula)
	}
	c := exec.Command("ruby", harness, filepath.Join(r.dir, "ask-confirm.rb"))
	c.Env = append(os.Environ(), "FORMULA_ARCH="+runtime.GOARCH, "FORMULA_PREFIX="+prefix, "HOME="+home,
		"FORMULA_SOURCE="+filepath.Join(src, r.name("linux", runtime.GOARCH)), "DISPLAY=:99")
	out, err := c.CombinedOutput()
	t.Logf("the formula, installed and tested:\n%s", out)
	if err != nil {
		t.Fatalf("the formula's install or test fails: %v", err)
	}
	if !strings.Contains(string(out), r.url(r.archiveName("linux", runtime.GOARCH))) {
		t.Errorf("the formula does not download this machine's archive on Linux")
	}
	for _, p := range programs {
		if fi, err := os.Stat(filepath.Join(prefix, "bin", p)); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("the formula installs no program %s: %v", p, err)
		}
	}
	for _, f := range []string{"share/man/man1/ask-confirm.1", "etc/bash_completion.d/ask-confirm",
		"share/zsh/site-functions/_ask-confirm", "share/fish/vendor_completions.d/ask-confirm.fish", "licenses/go/LICENSE"} {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Errorf("the formula installs no %s: %v", f, err)
		}
	}
}
