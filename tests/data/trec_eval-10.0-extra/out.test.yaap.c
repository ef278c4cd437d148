yaap                  	301	-3.3350
yaap                  	302	-4.3567
yaap                  	303	-0.7991
yaap                  	all	-2.8303
