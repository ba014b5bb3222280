export * from './git.ts';
export * from './worktree.ts';
export * from './home.ts';
export * from './carry-in/schema.ts';
export * from './carry-in/rewrite.ts';
export * from './carry-in/capture.ts';
export * from './carry-in/apply.ts';
export * from './carry-in/protect.ts';
