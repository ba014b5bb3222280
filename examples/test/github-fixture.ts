// The loopback GitHub REST API the end-to-end suites use is the demo's own stand-in (examples/demo/src/github.ts).
export { GITHUB_HOSTS, LATEST_RELEASES, startGithubFixture, type GithubFixture } from '../demo/src/github.ts';
