// The console's entry: styles, theme, and the app rendered into #app.
import { render } from 'preact';
import './styles.css';
import './theme.ts';
import { App } from './app.tsx';

const root = document.getElementById('app')!;
root.textContent = ''; // the boot message
render(<App />, root);
