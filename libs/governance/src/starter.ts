// What `intutic policy init` writes: a starter snapshot with one rule of each kind, all but the
// secrets rule in warn mode so nothing new is enforced until the user decides to, and an empty
// bypass list. The built-in destructive tier applies with or without these files.

export const STARTER_SNAPSHOT = `${JSON.stringify(
  {
    version: 1,
    description: 'Intutic policy snapshot. Format: libs/governance/README.md. The built-in destructive-command tier always applies.',
    rules: [
      {
        id: 'no-npm-publish',
        subject: 'command',
        pattern: 'npm publish*',
        action: 'block',
        mode: 'warn',
        reason: 'packages are published by CI, not by an agent',
      },
      { id: 'env-files', subject: 'path', pattern: '**/.env*', action: 'block', mode: 'warn', reason: '.env files hold secrets' },
      {
        id: 'aws-access-keys',
        subject: 'content',
        pattern: '/AKIA[0-9A-Z]{16}/',
        action: 'redact',
        mode: 'enforce',
        reason: 'an AWS access key id must not leave the machine',
      },
      {
        id: 'prod-deploys',
        subject: 'command',
        pattern: '/\\b(kubectl|helm)\\b.*\\bprod/',
        action: 'hold',
        mode: 'shadow',
        reason: 'production changes need an approval',
      },
      { id: 'paste-sites', subject: 'host', pattern: '{pastebin.com,*.pastebin.com}', action: 'block', mode: 'warn', reason: 'no uploads to paste sites' },
    ],
  },
  null,
  2,
)}\n`;

export const STARTER_BYPASSES = `${JSON.stringify(
  {
    version: 1,
    bypasses: [],
  },
  null,
  2,
)}\n`;
