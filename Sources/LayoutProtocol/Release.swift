/// The one version of layoutd. The daemon's and layoutctl's `--version`, `daemon.hello`, the
/// Debian package and the pkg-config files all say this; the Makefile reads it from the line
/// below (keep it one literal), and a test checks that CHANGELOG.md starts with it.
public enum Release {
    public static let version = "0.17.0"
}
