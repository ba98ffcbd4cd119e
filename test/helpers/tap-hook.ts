// tap's processinfo module-load hook as it appears in NODE_OPTIONS (plain-children.ts takes it out).

/** tap's processinfo loader in NODE_OPTIONS, bare or quoted, with the space after it */
const TAP_HOOK = /(?:"--(?:import|loader|experimental-loader)=[^"]*@tapjs\/processinfo[^"]*"|--(?:import|loader|experimental-loader)=\S*@tapjs\/processinfo\S*)\s*/g;

/** NODE_OPTIONS without tap's processinfo loader */
export function withoutTapHook(options: string): string {
  return options.replace(TAP_HOOK, '').trim();
}
