// The signed-in admin key: kept in this tab's sessionStorage only (gone when the tab closes; never
// in localStorage, a cookie or the URL), sent by api.ts as a Bearer token.
const STORAGE_KEY = 'gateway.adminKey';

export function adminKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function signIn(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
