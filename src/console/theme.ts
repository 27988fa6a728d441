// Light and dark themes: prefers-color-scheme by default, or the person's choice (a toggle), kept in
// localStorage (it is not a secret) and applied as data-theme on <html>.
import { signal } from '@preact/signals';

type Choice = 'light' | 'dark' | 'system';
const STORAGE = 'wos_console_theme';
const media = matchMedia('(prefers-color-scheme: dark)');

export const choice = signal<Choice>((localStorage.getItem(STORAGE) as Choice | null) ?? 'system');
/** The theme in effect: 'dark' or 'light'. */
export const theme = signal<'light' | 'dark'>('light');

function apply() {
  theme.value = choice.value === 'system' ? (media.matches ? 'dark' : 'light') : choice.value;
  document.documentElement.dataset.theme = theme.value;
}
media.addEventListener('change', apply);
apply();

export function toggleTheme(): void {
  choice.value = theme.value === 'dark' ? 'light' : 'dark';
  localStorage.setItem(STORAGE, choice.value);
  apply();
}
