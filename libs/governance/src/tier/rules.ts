// The destructive tier's rules: the id every hit names (what a bypass is granted for) and what it
// covers, as the reason shown to the agent and the docs describe it.

export const DESTRUCTIVE_RULES = [
  {
    id: 'destructive.rm_recursive',
    description:
      'recursive removal of /, a system directory, ~, the workspace root or above it (rm, rimraf, interpreters, PowerShell, cmd), or of a target that cannot be resolved',
  },
  { id: 'destructive.protected_file', description: 'overwriting, truncating, deleting or moving a system file or home configuration' },
  { id: 'destructive.move_protected', description: 'moving /, a system directory, ~ or the workspace root' },
  { id: 'destructive.mkfs', description: 'making a filesystem on a device (mkfs, mke2fs, mkswap, wipefs)' },
  { id: 'destructive.dd_device', description: 'dd writing to a device' },
  { id: 'destructive.device_write', description: 'writing to a device (redirection, tee, cp, shred)' },
  { id: 'destructive.disk_tool', description: 'partitioning, discarding or erasing a disk (sgdisk, blkdiscard, parted, format …)' },
  { id: 'destructive.fork_bomb', description: 'a fork bomb' },
  {
    id: 'destructive.chmod_chown_recursive',
    description: 'recursive chmod/chown/chgrp of /, a system directory or ~, or a chmod that takes a protected place or file away from its owner',
  },
  { id: 'destructive.git_push_force', description: 'git push --force (or -f, --force-with-lease, --mirror, a +refspec)' },
  { id: 'destructive.git_reset_hard', description: 'git reset --hard' },
  { id: 'destructive.git_clean', description: 'git clean -f (not a dry run)' },
  {
    id: 'destructive.sql_drop',
    description: 'DROP of a table, database, schema, role or user, TRUNCATE, DELETE or UPDATE of every row, or ALTER TABLE … DROP COLUMN, sent to a database',
  },
  { id: 'destructive.datastore_wipe', description: 'wiping a datastore (Redis FLUSHALL/FLUSHDB, MongoDB dropDatabase)' },
  {
    id: 'destructive.infra_teardown',
    description: 'tearing down infrastructure (terraform destroy, kubectl delete namespace, helm uninstall, cloud and gh deletes, docker prune)',
  },
  { id: 'destructive.remote_script', description: 'running a downloaded script (curl|sh, bash <(curl …), curl -o x && sh x, iwr|iex, a reverse shell)' },
  { id: 'destructive.find_delete', description: 'find -delete or -exec rm over /, a system directory or ~' },
  {
    id: 'destructive.unresolved_script',
    description: 'a script handed to a shell or interpreter whose text cannot be read (decoded, generated or in a variable)',
  },
  {
    id: 'destructive.git_history',
    description:
      'destroying git history or remote refs: deleting a remote branch or tag (push --delete, :ref, --prune), expiring the reflog, pruning at once, deleting the default branch, update-ref -d, filter-branch/filter-repo/BFG, rm -r of .git',
  },
  {
    id: 'destructive.hooks_disabled',
    description: "switching a harness's hooks off or moving its settings (CLAUDE_CODE_SIMPLE=1, claude --bare, CLAUDE_CONFIG_DIR, CODEX_HOME …)",
  },
  {
    id: 'destructive.system_disruption',
    description:
      "signalling every process (kill -1, pkill -u, killall5) or init, shutting down or rebooting, taking the machine's firewall or network down, removing the packages it runs on",
  },
  { id: 'destructive.ungoverned_agent', description: 'starting another coding agent (claude, codex, gemini …), whose own tool calls no gate would see' },
] as const;

export type DestructiveRuleId = (typeof DESTRUCTIVE_RULES)[number]['id'];
