// Sign-in state. The API key lives in sessionStorage only (never localStorage, a cookie or a URL): it is
// gone when the tab closes or on Sign out. `me` is what the key may do (GET /v1/me).
import { computed, signal } from '@preact/signals';
import type { components } from './api/schema.js';

const STORAGE = 'wos_console_api_key';

export type Me = components['schemas']['CredentialContext'];

export const apiKey = signal<string | null>(sessionStorage.getItem(STORAGE));
export const me = signal<Me | null>(null);
export const scopes = computed(() => new Set(me.value?.scopes ?? []));
export const modules = computed(() => new Set(me.value?.modules ?? []));

export function remember(key: string): void {
  sessionStorage.setItem(STORAGE, key);
  apiKey.value = key;
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE);
  apiKey.value = null;
  me.value = null;
}

/** Whether the key holds every scope and the workspace has the module enabled. */
export function can(scopeList: readonly string[], module = 'product_analytics_bi'): boolean {
  return modules.value.has(module) && scopeList.every((scope) => scopes.value.has(scope));
}
