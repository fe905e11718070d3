import { createContext, type ReactNode, useCallback, useContext, useState } from 'react';

interface Toast {
  id: number;
  text: string;
  tone: 'ok' | 'bad';
}

const ToastContext = createContext<(text: string, tone?: Toast['tone']) => void>(() => {});

/** Short confirmations ("Saved") and failures of background work, read out by screen readers. */
export function ToastProvider(props: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const notify = useCallback((text: string, tone: Toast['tone'] = 'ok') => {
    const id = Date.now() + Math.random();
    setToasts((all) => [...all.slice(-3), { id, text, tone }]);
    setTimeout(() => setToasts((all) => all.filter((t) => t.id !== id)), 5000);
  }, []);
  return (
    <ToastContext.Provider value={notify}>
      {props.children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <p key={t.id} className={`toast toast-${t.tone}`}>
            {t.text}
          </p>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast() {
  return useContext(ToastContext);
}
