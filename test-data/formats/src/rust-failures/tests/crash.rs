#[test] fn fine() {}
#[test] fn aborts() { std::thread::sleep(std::time::Duration::from_millis(200)); std::process::abort(); }
#[test] fn slowish() { std::thread::sleep(std::time::Duration::from_secs(2)); }
